import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** DynamoDB's item size: attribute names plus values (strings in UTF-8, numbers ~1 byte per 2 digits). */
export function itemSize(item: Readonly<Record<string, AttributeValue>>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return Math.ceil(v.N.replace(/^-|\.|^0+/g, '').length / 2) + 1;
  // Binary is raw bytes; read off a serialized request it is still base64 text.
  if (v.B !== undefined) return binarySize(v.B);
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((s, x) => s + Buffer.byteLength(x), 0);
  if (v.NS) return v.NS.reduce((s, x) => s + valueSize({ N: x }), 0);
  if (v.BS) return v.BS.reduce((s, x) => s + binarySize(x), 0);
  if (v.L) return 3 + v.L.reduce((s, x) => s + 1 + valueSize(x), 0);
  if (v.M) return 3 + Object.keys(v.M).length + itemSize(v.M);
  return 0;
}

const binarySize = (b: Uint8Array | string) => (typeof b === 'string' ? Buffer.from(b, 'base64').length : b.length);

/** Write units for an item or index entry of this size (1 KB each, at least 1). */
export const writeUnits = (item: Readonly<Record<string, AttributeValue>>) =>
  Math.max(1, Math.ceil(itemSize(item) / 1024));

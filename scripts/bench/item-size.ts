import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { itemBytes } from '#domain/item-size.ts';

/** DynamoDB's item size (domain/item-size.ts) of an item as the low-level API carries it. */
export function itemSize(item: Readonly<Record<string, AttributeValue>>): number {
  return itemBytes(Object.fromEntries(Object.entries(item).map(([name, value]) => [name, plain(value)])));
}

/** The plain value the size rule reads: numbers as numbers, binary as bytes (read off a serialized request it is still base64 text). */
function plain(v: AttributeValue): unknown {
  if (v.S !== undefined) return v.S;
  if (v.N !== undefined) return Number(v.N);
  if (v.B !== undefined) return bytes(v.B);
  if (v.BOOL !== undefined) return v.BOOL;
  if (v.NULL !== undefined) return null;
  if (v.SS) return new Set(v.SS);
  if (v.NS) return new Set(v.NS.map(Number));
  if (v.BS) return new Set(v.BS.map(bytes));
  if (v.L) return v.L.map(plain);
  if (v.M) return Object.fromEntries(Object.entries(v.M).map(([name, value]) => [name, plain(value)]));
  return undefined;
}

const bytes = (b: Uint8Array | string) => (typeof b === 'string' ? Buffer.from(b, 'base64') : b);

/** Write units for an item or index entry of this size (1 KB each, at least 1). */
export const writeUnits = (item: Readonly<Record<string, AttributeValue>>) =>
  Math.max(1, Math.ceil(itemSize(item) / 1024));

/**
 * An item's size as DynamoDB counts it for write and read units
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html),
 * over the plain values a document holds: attribute names plus values; strings by their UTF-8
 * bytes; a number about one byte per two significant digits, plus one; binary by its bytes;
 * booleans and null one byte; a list or map 3 bytes plus one per element (and, for a map, its
 * names). `undefined` is no attribute at all. A write costs one unit per started KB, so a rule
 * that keeps a row within 1 KB needs this, and only this, count.
 */
export function itemBytes(item: object): number {
  let n = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) n += utf8Bytes(name) + valueBytes(value);
  return n;
}

function valueBytes(v: unknown): number {
  if (typeof v === 'string') return utf8Bytes(v);
  if (typeof v === 'number' || typeof v === 'bigint') return numberBytes(String(v));
  if (typeof v === 'boolean' || v === null) return 1;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof Set) {
    let n = 0;
    for (const x of v) n += valueBytes(x);
    return n;
  }
  if (Array.isArray(v)) {
    let n = 3;
    for (const x of v) if (x !== undefined) n += valueBytes(x) + 1;
    return n;
  }
  if (typeof v === 'object') {
    const map = v as Readonly<Record<string, unknown>>;
    let n = 3;
    for (const name in map) if (map[name] !== undefined) n += 1;
    return n + itemBytes(map);
  }
  return 0;
}

/** Significant digits, two to a byte, plus one: `120`, `1.2` and `0.012` all count as 2 bytes. */
function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

function utf8Bytes(s: string): number {
  // Most attributes are ids, timestamps and JSON: count ASCII without encoding.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return new TextEncoder().encode(s).length;
  return s.length;
}

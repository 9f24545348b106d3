/**
 * Item size as DynamoDB counts it for capacity and the 400 KB limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * attribute names plus values; strings and binary by their bytes; a number about one byte per two
 * significant digits plus one; BOOL and NULL one byte; a list or map 3 bytes of overhead plus one
 * byte per element (and its names, for a map).
 */
import { typeOf, type Item } from './values.ts';

export const MAX_ITEM_BYTES = 400 * 1024;

function utf8Length(s: string): number {
  // ASCII fast path: most Hookline attributes are ids, ISO timestamps and JSON.
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      n = Buffer.byteLength(s, 'utf8');
      break;
    }
  }
  return n;
}

function numberSize(v: unknown): number {
  const digits = String(typeof v === 'number' ? v : ((v as { value?: string }).value ?? v))
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

export function valueSize(v: unknown): number {
  switch (typeOf(v)) {
    case 'S':
      return utf8Length(v as string);
    case 'N':
      return numberSize(v);
    case 'B':
      return (v as Uint8Array).length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
    case 'NS':
    case 'BS': {
      let n = 0;
      for (const x of v as Set<unknown>) n += valueSize(x);
      return n;
    }
    case 'L': {
      let n = 3;
      for (const x of v as unknown[]) if (x !== undefined) n += valueSize(x) + 1;
      return n;
    }
    case 'M': {
      let n = 3;
      const m = v as Item;
      for (const k in m) if (m[k] !== undefined) n += utf8Length(k) + valueSize(m[k]) + 1;
      return n;
    }
    default:
      return 0;
  }
}

export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let n = 0;
  for (const k in item) if (item[k] !== undefined) n += utf8Length(k) + valueSize(item[k]);
  return n;
}

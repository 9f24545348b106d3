/**
 * Native DynamoDB values as lib-dynamodb hands them over (string, number, boolean, null,
 * Uint8Array, Set, array, plain object) and the operations DynamoDB defines on them: type,
 * ordering, equality, copying.
 */
import { validation } from './errors.ts';

export type Item = Record<string, unknown>;
export type DynamoType = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'SS' | 'NS' | 'BS' | 'L' | 'M';

export function typeOf(v: unknown): DynamoType | undefined {
  switch (typeof v) {
    case 'string':
      return 'S';
    case 'number':
    case 'bigint':
      return 'N';
    case 'boolean':
      return 'BOOL';
    case 'undefined':
      return undefined;
    case 'object': {
      if (v === null) return 'NULL';
      if (v instanceof Uint8Array) return 'B';
      if (Array.isArray(v)) return 'L';
      if (v instanceof Set) {
        const first = v.values().next().value;
        return typeof first === 'string' ? 'SS' : first instanceof Uint8Array ? 'BS' : 'NS';
      }
      // lib-dynamodb's NumberValue (wrapNumbers) carries its digits in `value`.
      if ((v as { constructor?: { name?: string } }).constructor?.name === 'NumberValue') return 'N';
      return 'M';
    }
    default:
      return undefined;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/**
 * UTF-8 byte order, which DynamoDB sorts and compares strings by. JS compares UTF-16 code
 * units; the two differ only where a surrogate (a character above U+FFFF) meets U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(String((v as { value?: string }).value ?? v)));

/** Orders two scalars of the same type (S, N or B); undefined when they are not comparable. */
export function compareScalars(a: unknown, b: unknown): number | undefined {
  const ta = typeOf(a);
  if (ta !== typeOf(b)) return undefined;
  if (ta === 'S') return compareStrings(a as string, b as string);
  if (ta === 'N') return num(a) - num(b);
  if (ta === 'B') return compareBytes(a as Uint8Array, b as Uint8Array);
  return undefined;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = typeOf(a);
  if (ta !== typeOf(b) || ta === undefined) return false;
  switch (ta) {
    case 'N':
      return num(a) === num(b);
    case 'B':
      return compareBytes(a as Uint8Array, b as Uint8Array) === 0;
    case 'SS':
    case 'NS':
    case 'BS': {
      const sa = a as Set<unknown>;
      const sb = b as Set<unknown>;
      if (sa.size !== sb.size) return false;
      for (const x of sa) if (!setHas(sb, x)) return false;
      return true;
    }
    case 'L': {
      const la = a as unknown[];
      const lb = b as unknown[];
      return la.length === lb.length && la.every((x, i) => deepEqual(x, lb[i]));
    }
    case 'M': {
      const ma = a as Item;
      const mb = b as Item;
      const ka = Object.keys(ma).filter((k) => ma[k] !== undefined);
      const kb = Object.keys(mb).filter((k) => mb[k] !== undefined);
      return ka.length === kb.length && ka.every((k) => deepEqual(ma[k], mb[k]));
    }
    default:
      return false;
  }
}

export function setHas(s: Set<unknown>, x: unknown): boolean {
  if (s.has(x)) return true;
  if (x instanceof Uint8Array || typeof x === 'object') for (const y of s) if (deepEqual(x, y)) return true;
  return false;
}

/**
 * A deep copy with undefined members dropped (lib-dynamodb's removeUndefinedValues, which the
 * adapters set): stored items never share structure with the caller's objects.
 */
export function copyValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Uint8Array) return v.slice();
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(copyValue);
  if (v instanceof Set) {
    if (v.size === 0) throw validation('One or more parameter values were invalid: An string set  may not be empty');
    return new Set([...v].map(copyValue));
  }
  if (typeOf(v) === 'N') return num(v);
  return copyItem(v as Item);
}

export function copyItem(item: Item): Item {
  const out: Item = {};
  for (const k in item) {
    const v = item[k];
    if (v !== undefined) out[k] = typeof v === 'object' && v !== null ? copyValue(v) : v;
  }
  return out;
}

/** A map key for a key attribute value: type-tagged so the string "1" and the number 1 differ. */
export function keyString(v: unknown): string {
  switch (typeOf(v)) {
    case 'S':
      return `s${v as string}`;
    case 'N':
      return `n${num(v)}`;
    case 'B':
      return `b${Buffer.from(v as Uint8Array).toString('base64')}`;
    default:
      return `?${String(v)}`;
  }
}

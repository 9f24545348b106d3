import { InvalidCursorError } from './errors.ts';

/** Opaque cursors wrap DynamoDB's LastEvaluatedKey (plus any adapter state) as base64url JSON. */
export function encodeCursor(value: unknown): string | undefined {
  return value === undefined ? undefined : Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string | undefined): T | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw new Error('bad characters or length');
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    for (const v of Object.values(value)) {
      if (v !== null && typeof v === 'object') {
        for (const inner of Object.values(v)) if (typeof inner !== 'string' && typeof inner !== 'number') throw new Error('bad key');
      } else if (typeof v !== 'string' && typeof v !== 'number') throw new Error('bad field');
    }
    return value as T;
  } catch (cause) {
    throw new InvalidCursorError({ cause });
  }
}

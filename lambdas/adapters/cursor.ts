import { InvalidCursorError } from '#ports/page.ts';

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

/**
 * Sends a read that starts from a caller's cursor. DynamoDB refuses a start key that does not
 * fit the table or index (a forged or foreign cursor) with a ValidationException: that is the
 * caller's bad cursor, not a server fault.
 */
export async function fromCursor<T>(startKey: unknown, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (startKey !== undefined && (error as { name?: string } | undefined)?.name === 'ValidationException') throw new InvalidCursorError({ cause: error });
    throw error;
  }
}

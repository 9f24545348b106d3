/** One page of a listing; `nextCursor` is opaque to callers and absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string;
}

/**
 * Part of every listing's contract: a cursor this service did not issue, or one that was
 * altered, is refused with this (the caller's mistake, not a server fault), so callers of any
 * store can tell it apart without knowing the adapter behind it.
 */
export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
  constructor(options?: ErrorOptions) {
    super('cursor is not valid: pass back the nextCursor of a previous page unchanged', options);
  }
}

/**
 * The cursor format every listing shares: base64url JSON of a flat object (a store's
 * LastEvaluatedKey and any state of its own, or a merged listing's place), refused whole with
 * InvalidCursorError when it is not one.
 */
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
        for (const inner of Object.values(v))
          if (typeof inner !== 'string' && typeof inner !== 'number') throw new Error('bad key');
      } else if (typeof v !== 'string' && typeof v !== 'number') throw new Error('bad field');
    }
    return value as T;
  } catch (cause) {
    throw new InvalidCursorError({ cause });
  }
}

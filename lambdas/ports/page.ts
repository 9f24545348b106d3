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

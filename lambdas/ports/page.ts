/** One page of a listing; `nextCursor` is opaque to callers and absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string;
}

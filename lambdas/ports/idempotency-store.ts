/**
 * What a first request sent with an Idempotency-Key leaves behind, so a retry with the same key
 * gets the same answer instead of doing the work again (lambdas/app/idempotency/idempotency.ts).
 * The store holds no key and no readable answer: `id` is a hash of the caller's scope, the route
 * and the key, and the answer is sealed under a key derived from the Idempotency-Key itself.
 */
export interface IdempotencyRecord {
  readonly id: string;
  /** An HMAC of the request (method, path, body) under a key derived from the Idempotency-Key: a retry must match it. */
  readonly fingerprint: string;
  readonly createdAt: string;
  /** Epoch seconds after which the record no longer counts (DynamoDB TTL deletes it some time later). */
  readonly expiresAt: number;
  /** While the first request runs: who runs it, and until when (a request that died lets a retry take over after this). */
  readonly owner?: string;
  readonly lockedUntil?: string;
  /** Once it finished: its status and its body, sealed; `sealed` is absent when the body was too large to keep. */
  readonly response?: { readonly status: number; readonly sealed?: string };
}

export type BeginResult =
  /** The caller holds the key now and runs the request. */
  | { readonly kind: 'started' }
  /** Someone used the key first: the record as stored (in progress or finished). */
  | { readonly kind: 'exists'; readonly record: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Takes the key for a first request, writing `record` (in progress, with its owner and lock)
   * when there is no live record: none, one past `expiresAt`, or one still in progress for the
   * same fingerprint whose lock ran out before `nowIso` (its request died). Otherwise returns
   * the stored record, which the caller compares.
   */
  begin(
    record: IdempotencyRecord & { readonly owner: string; readonly lockedUntil: string },
    nowIso: string,
  ): Promise<BeginResult>;
  /** Records the answer of the request `owner` ran; false when another request took the key over meanwhile. */
  complete(id: string, owner: string, response: NonNullable<IdempotencyRecord['response']>): Promise<boolean>;
  /** Drops the in-progress record `owner` holds (the request was refused or failed), so a corrected retry runs. */
  release(id: string, owner: string): Promise<void>;
}

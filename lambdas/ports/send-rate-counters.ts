/**
 * The sender's rate-limit counters (app/send/rate-gate.ts): atomic counts and turn queues kept
 * in the rate-limits table. The window arithmetic is the domain's (domain/send-rate.ts); this
 * port only counts.
 */
export interface SendRateCounters {
  /** Adds one to `key`'s count and answers the count including it: one unconditional atomic write. Dropped after `expiresAtSeconds`. */
  count(key: string, expiresAtSeconds: number): Promise<number>;
  /**
   * Takes the next turn of `key`'s queue, no earlier than `earliest`: answers max(next, earliest)
   * and stores one past it, atomically. Kept until `expiresAtSeconds`.
   */
  takeTurn(key: string, earliest: number, expiresAtSeconds: number): Promise<number>;
}

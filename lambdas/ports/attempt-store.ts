import type { AttemptRecord } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

export interface AttemptStore {
  /**
   * Writes an attempt once and never overwrites one: false, writing nothing, when this delivery
   * already has an attempt of that `seq` (a copy of the same attempt recorded it first). TTL
   * deletes it at `expiresAt` (epoch seconds; the writer's rule, domain/retention.ts attemptTtlFor).
   */
  put(attempt: AttemptRecord, expiresAt: number): Promise<boolean>;
  /**
   * Moves the TTL of every attempt of the delivery out to `untilEpochSeconds`, never in: a new
   * run (a replay, a Retry now) keeps its log for as long as its own outcome may be read.
   */
  extendRetention(deliveryId: string, untilEpochSeconds: number): Promise<void>;
  /** The whole log of a delivery, oldest first, across replays (the archiver; the API pages with `latest`). */
  list(deliveryId: string): Promise<readonly AttemptRecord[]>;
  /**
   * The latest `limit` attempts before the cursor (the newest ones without one), returned oldest
   * first; `nextCursor` leads to the attempts before them. A tenant can add an attempt a second
   * (its resend button), so a delivery's log is read a page at a time, never whole.
   */
  latest(deliveryId: string, request: PageRequest): Promise<Page<AttemptRecord>>;
}

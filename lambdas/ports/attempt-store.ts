import type { AttemptRecord } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

export interface AttemptStore {
  put(attempt: AttemptRecord): Promise<void>;
  /** The whole log of a delivery, oldest first, across replays (the archiver; the API pages with `latest`). */
  list(deliveryId: string): Promise<readonly AttemptRecord[]>;
  /**
   * The latest `limit` attempts before the cursor (the newest ones without one), returned oldest
   * first; `nextCursor` leads to the attempts before them. A tenant can add an attempt a second
   * (its resend button), so a delivery's log is read a page at a time, never whole.
   */
  latest(deliveryId: string, request: PageRequest): Promise<Page<AttemptRecord>>;
}

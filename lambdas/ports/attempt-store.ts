import type { AttemptRecord } from '#domain/types.ts';

export interface AttemptStore {
  put(attempt: AttemptRecord): Promise<void>;
  /** The whole log of a delivery, oldest first, across replays. */
  list(deliveryId: string): Promise<readonly AttemptRecord[]>;
}

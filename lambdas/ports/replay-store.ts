import type { ReplayRecord } from '#domain/replay.ts';
import type { Page, PageRequest } from './page.ts';

/** Progress written at each checkpoint of a bulk replay. */
export interface ReplayProgress {
  readonly matched: number;
  readonly replayed: number;
  readonly skipped: number;
  readonly sample?: readonly string[];
  readonly cursor?: string;
  readonly status: ReplayRecord['status'];
  readonly finishedAt?: string;
  readonly leaseUntil: string;
  readonly updatedAt: string;
}

/** The bulk-replay audit trail, which doubles as each replay's resumable checkpoint. */
export interface ReplayStore {
  create(record: ReplayRecord): Promise<void>;
  get(id: string): Promise<ReplayRecord | undefined>;
  /** Newest first. */
  list(request: PageRequest): Promise<Page<ReplayRecord>>;
  /** Takes the lease of a running replay if it is free, expired or already `owner`'s; undefined otherwise. */
  acquire(id: string, owner: string, leaseUntil: string, nowIso: string): Promise<ReplayRecord | undefined>;
  /** Saves progress while `owner` holds the lease; false when the lease was lost (another worker resumed). */
  checkpoint(id: string, owner: string, progress: ReplayProgress): Promise<boolean>;
  /** Running replays whose lease has run out (their worker stopped): the ones to resume. */
  listStalled(nowIso: string, limit: number): Promise<readonly string[]>;
}

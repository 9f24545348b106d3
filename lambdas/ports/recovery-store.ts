import type { ArchiveRecord } from '#domain/archive.ts';
import type { Delivery, RestoreMarker } from '#domain/types.ts';
import type { Page, PageRequest } from './page.ts';

/**
 * A range read for a walk that needs every match once and no order (a bulk replay): its pages
 * may come in any order, which lets a sharded listing ask every shard for its share at once
 * instead of merging them. Its cursors are its own; an ordered read's cursor given with it goes
 * on in order (a replay checkpointed by an earlier version).
 */
export interface AnyOrder {
  readonly anyOrder?: boolean;
}

/**
 * What bulk replay and the archiver need from the tables beyond the delivery engine's
 * `DeliveryStore`: range reads in oldest-first order, archive-safe deletes and restores.
 */
export interface RecoveryStore {
  /** One subscription's deliveries created in [createdFrom, createdTo], oldest first (or in any order), read consistently. */
  listCreated(
    request: PageRequest &
      AnyOrder & {
        readonly subscriptionId: string;
        readonly createdFrom?: string;
        readonly createdTo: string;
      },
  ): Promise<Page<Delivery>>;
  /**
   * Dead letters last changed in [changedFrom, changedTo], oldest first, optionally of one
   * subscription. A page reads each dead-letter shard once at least, however wide the range;
   * or in any order, every shard at once for its share.
   */
  listDeadLettersChanged(
    request: PageRequest &
      AnyOrder & {
        readonly subscriptionId?: string;
        readonly changedFrom: string;
        readonly changedTo: string;
      },
  ): Promise<Page<Delivery>>;
  /**
   * Deletes an archived delivery, unless it changed after `updatedAt` (then nothing is deleted
   * and the result is false). One already gone counts as deleted, so finishing an interrupted
   * batch is safe. Its attempt log is left to its TTL (domain/retention.ts attemptTtlFor: about a
   * month after a dead letter's archival), which deletes for free: a paid delete per attempt
   * would cost more than the month's storage. Nothing reads a log without its delivery.
   */
  deleteArchived(id: string, updatedAt: string): Promise<boolean>;
  /**
   * Writes an archived delivery back with its attempts and (if gone) its event, kept until
   * `marker.until`. Every write is put-if-absent: a live delivery with the same id is never
   * overwritten; an attempt still there is kept at least as long as the restored row. An event still there has its TTL extended to the restored rows' at least, so
   * the body stays as long as they do. False when the delivery already existed.
   */
  restore(record: ArchiveRecord, marker: RestoreMarker): Promise<boolean>;
}

import { createHash } from 'node:crypto';
import { ArchiveFormatError } from './errors.ts';
import { numericPolicy } from './policy.ts';
import type { RetentionPolicy } from './retention.ts';
import { isDeadLetter, type DeliveryState } from './states.ts';
import type { AttemptRecord, Delivery } from './types.ts';

/** How the archiver batches and how long a restore keeps rows; configuration with documented defaults. */
const ARCHIVE_POLICY = numericPolicy('archivePolicy', {
  /**
   * Most deliveries in one archive object (one object per day, subscription and batch). The
   * batch's manifest (id and version per delivery) must fit one 400 KB DynamoDB item.
   */
  batchSize: { default: 1000, min: 1, max: 2000, integer: true },
  /** Days restored deliveries stay in DynamoDB before the archiver drops them again (they are already archived). */
  restoreHoldDays: { default: 7, min: 0, max: 365, integer: false },
  /**
   * Lifetime of the run lock, renewed at every batch: long enough for one batch, short enough
   * that a run that died (a Lambda timeout, a killed process) blocks the next one only briefly.
   */
  lockSeconds: { default: 60, min: 1, max: 900, integer: true },
});

export type ArchivePolicy = typeof DEFAULT_ARCHIVE_POLICY;
export const DEFAULT_ARCHIVE_POLICY = ARCHIVE_POLICY.defaults;
export const resolveArchivePolicy = ARCHIVE_POLICY.resolve;

/** One line of an archive object: a delivery with its attempt log and the body that was sent. */
export interface ArchiveRecord {
  readonly v: 1;
  readonly delivery: Delivery;
  readonly attempts: readonly AttemptRecord[];
  readonly event?: { readonly id: string; readonly type: string; readonly body: string; readonly createdAt: string };
  readonly archivedAt: string;
}

/** Every archive object lives under this prefix, leaving the rest of the bucket for other datasets. */
export const ARCHIVE_PREFIX = 'deliveries/';
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The `dt=` partition of a delivery: the UTC day it was created, which is what a dispute asks about. */
export function archiveDay(d: Pick<Delivery, 'createdAt'>): string {
  return d.createdAt.slice(0, 10);
}

export function archivePrefix(day: string, subscriptionId?: string): string {
  return `${ARCHIVE_PREFIX}dt=${day}/${subscriptionId ? `subscription=${subscriptionId}/` : ''}`;
}

/**
 * The object key of a batch, derived from the ids it holds (Hive-style partitions so Athena
 * can query the bucket). The same batch always gets the same key, so writing it again after a
 * crash overwrites the object instead of adding a second copy of its records.
 */
export function archiveObjectKey(day: string, subscriptionId: string, ids: readonly string[]): string {
  const digest = createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 20);
  return `${archivePrefix(day, subscriptionId)}part-${digest}.ndjson.gz`;
}

/** Where a deleted subscription's row goes once its retention has passed (beside its deliveries' partitions). */
export const SUBSCRIPTION_ARCHIVE_PREFIX = 'subscriptions/';

export function subscriptionArchiveKey(subscriptionId: string, deletedAt: string): string {
  return `${SUBSCRIPTION_ARCHIVE_PREFIX}dt=${deletedAt.slice(0, 10)}/${subscriptionId}.json.gz`;
}

/**
 * A deleted subscription leaves DynamoDB for the archive once the longer retention has passed
 * since it was deleted: every delivery it has was created before that, so none still needs it
 * to be read.
 */
export function isSubscriptionArchivable(
  s: { readonly state: string; readonly stateChangedAt: string },
  cutoffs: ArchiveCutoffs,
): boolean {
  const earliest = cutoffs.delivered < cutoffs.deadLetter ? cutoffs.delivered : cutoffs.deadLetter;
  return s.state === 'deleted' && s.stateChangedAt < earliest;
}

export interface ArchiveCutoffs {
  readonly delivered: string;
  readonly deadLetter: string;
  /** Whether delivered deliveries are archived at all (else TTL deletes them at `delivered`). */
  readonly archivesDelivered: boolean;
  /** The later of the cutoffs of what is archived: nothing created after it can be archivable. */
  readonly latest: string;
}

export function archiveCutoffs(nowMs: number, retention: RetentionPolicy): ArchiveCutoffs {
  const delivered = new Date(nowMs - retention.deliveredDays * DAY_MS).toISOString();
  const deadLetter = new Date(nowMs - retention.deadLetterDays * DAY_MS).toISOString();
  const archivesDelivered = retention.archiveDelivered === 1;
  // Without delivered rows to archive, the daily run never pages through them: TTL takes them.
  const latest = archivesDelivered && delivered > deadLetter ? delivered : deadLetter;
  return { delivered, deadLetter, archivesDelivered, latest };
}

/** Terminal, and last changed before its state's retention ran out. */
export function isArchivable(
  d: { readonly state: DeliveryState; readonly updatedAt: string },
  cutoffs: ArchiveCutoffs,
): boolean {
  if (d.state === 'delivered') return cutoffs.archivesDelivered && d.updatedAt < cutoffs.delivered;
  if (isDeadLetter(d.state)) return d.updatedAt < cutoffs.deadLetter;
  return false;
}

/**
 * Splits deliveries (of one subscription, in createdAt order) into batches: one day each, at
 * most `batchSize` long. Batches never mix days, because the day is the object's partition.
 */
export function planBatches<T extends Pick<Delivery, 'createdAt'>>(items: readonly T[], batchSize: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  for (const item of items) {
    const last = current[current.length - 1];
    if (current.length >= batchSize || (last && archiveDay(last) !== archiveDay(item))) {
      batches.push(current);
      current = [];
    }
    current.push(item);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function encodeArchive(records: readonly ArchiveRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

export function decodeArchive(text: string, source = 'archive object'): ArchiveRecord[] {
  const records: ArchiveRecord[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new ArchiveFormatError(`${source} line ${i + 1} is not JSON`, { cause });
    }
    const r = value as Partial<ArchiveRecord>;
    if (r?.v !== 1 || typeof r.delivery?.id !== 'string' || !Array.isArray(r.attempts)) {
      throw new ArchiveFormatError(`${source} line ${i + 1} is not a version 1 archive record`);
    }
    records.push(r as ArchiveRecord);
  }
  return records;
}

/** The UTC days from `from` to `to` inclusive (YYYY-MM-DD), refusing reversed or over-long ranges. */
export function daysBetween(from: string, to: string, maxDays = 366): string[] {
  if (!DAY.test(from) || !DAY.test(to) || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) {
    throw new ArchiveFormatError(`days must be YYYY-MM-DD, got ${from} and ${to}`);
  }
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (end < start) throw new ArchiveFormatError(`range ends (${to}) before it starts (${from})`);
  const count = (end - start) / DAY_MS + 1;
  if (count > maxDays) throw new ArchiveFormatError(`range spans ${count} days; at most ${maxDays} at a time`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

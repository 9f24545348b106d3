import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TABLES, type TableKey } from '#config/topology.ts';
import * as retention from '#domain/retention.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';
import { isDeadLetter, type DeliveryState } from '#domain/states.ts';
import { indexEntry, inIndex } from './gsi-writes.ts';
import { itemSize } from './item-size.ts';
import { PRICES } from './prices.ts';

type Item = Readonly<Record<string, AttributeValue>>;

/** DynamoDB bills each item, and each index entry, at its size plus 100 bytes of overhead. */
export const ITEM_OVERHEAD_BYTES = 100;
/** DynamoDB measures sizes in binary units: 1 GB = 2^30 bytes. */
export const GB = 2 ** 30;
/** A month of the GB-month price, in days (365 / 12). */
export const DAYS_PER_MONTH = 365 / 12;
const DAY_S = 86_400;

/** The bytes one kept row is billed for: the item, its overhead, and its entry in every index it sits in. */
export function billedBytes(table: TableKey, item: Item): number {
  const def = TABLES[table];
  const entries = def.indexes
    .filter((index) => inIndex(index, item))
    .map((index) => itemSize(indexEntry(def, index, item)) + ITEM_OVERHEAD_BYTES);
  return itemSize(item) + ITEM_OVERHEAD_BYTES + entries.reduce((a, b) => a + b, 0);
}

/** How long a table's rows stay, and the rule that says so. */
export interface KeptFor {
  readonly days: number;
  readonly rule: string;
}

/**
 * Days an event row stays at the stack's defaults: its TTL (`eventTtlFor`, lambdas/domain/retention.ts)
 * runs from the last of its deliveries' deadlines, the default policy's 3 days here (the bench's
 * own subscriptions retry for 300 s only, which would understate it), for the delivered
 * retention and a day: the least an event stays (KEEP_RULES measure one a dead letter kept longer).
 */
export function eventKeptFor(
  p: retention.RetentionPolicy = retention.DEFAULT_RETENTION,
  deadlineSeconds: number = DEFAULT_RETRY_POLICY.deadlineSeconds,
): KeptFor {
  const t0 = Date.UTC(2026, 0, 1);
  const days = (retention.eventTtlFor(t0 + deadlineSeconds * 1000, p) - t0 / 1000) / DAY_S;
  const after = p.archiveDelivered
    ? `ttlSafetyMarginDays ${p.ttlSafetyMarginDays}`
    : `${retention.EVENT_TTL_SLACK_DAYS} day of slack`;
  return {
    days,
    rule: `the events TTL, eventTtlFor(the last deadline) − createdAt: the default deadline ${deadlineSeconds / DAY_S} days + deliveredDays ${p.deliveredDays} + ${after}`,
  };
}

/** Days delivered deliveries stay: TTL deletes them after deliveredDays, or the archiver moves them then. */
export function deliveredKeptFor(p: retention.RetentionPolicy = retention.DEFAULT_RETENTION): KeptFor {
  return {
    days: p.deliveredDays,
    rule: p.archiveDelivered
      ? `deliveredDays ${p.deliveredDays} (the archiver then copies the row and its attempts to S3 and deletes the row; TTL at +${p.ttlSafetyMarginDays} days is the net)`
      : `deliveredDays ${p.deliveredDays} (then DynamoDB TTL deletes the row, for free, usually within a day or two; archiveDelivered is off)`,
  };
}

export interface StoragePart {
  readonly table: TableKey;
  readonly rowsPerEvent: number;
  /** Mean billed bytes per kept row (item + overhead + index entries). */
  readonly bytesPerRow: number;
  readonly keptFor: KeptFor;
}

export interface StorageCost {
  readonly parts: readonly (StoragePart & {
    readonly gbMonthsPerMillionEvents: number;
    readonly dollarsPerMillionEvents: number;
  })[];
  readonly dollarsPerMillionEvents: number;
}

/** Storage per million events: Σ rows per event × bytes per row × 10^6 / 2^30 × days kept / days per month × $ per GB-month. */
export function storagePerMillionEvents(
  parts: readonly StoragePart[],
  pricePerGbMonth: number = PRICES.dynamodbStorageGbMonth,
): StorageCost {
  const priced = parts.map((part) => {
    const gbMonthsPerMillionEvents =
      ((part.rowsPerEvent * part.bytesPerRow * 1e6) / GB) * (part.keptFor.days / DAYS_PER_MONTH);
    return { ...part, gbMonthsPerMillionEvents, dollarsPerMillionEvents: gbMonthsPerMillionEvents * pricePerGbMonth };
  });
  return { parts: priced, dollarsPerMillionEvents: priced.reduce((s, p) => s + p.dollarsPerMillionEvents, 0) };
}

/** Days between two instants (epoch seconds, ISO 8601), or undefined when either is missing. */
function daysBetween(fromIso: string | undefined, toEpochSeconds: string | undefined): number | undefined {
  if (!fromIso || !toEpochSeconds) return undefined;
  const days = (Number(toEpochSeconds) - Date.parse(fromIso) / 1000) / DAY_S;
  return Number.isFinite(days) && days > 0 ? days : undefined;
}

const deadLetter = (item: Item | undefined) =>
  item?.state?.S !== undefined && isDeadLetter(item.state.S as DeliveryState);

/** How long one kept row of a table stays, and how the report says so; a table not here is kept like a delivered row. */
interface KeepRule {
  days(item: Item, p: retention.RetentionPolicy): number;
  rule(p: retention.RetentionPolicy): string;
}

/** An event's or a manifest's days: its own TTL, at least an event's at the default deadline. */
const byOwnTtlAtLeastTheEvents: KeepRule['days'] = (item, p) =>
  Math.max(eventKeptFor(p).days, daysBetween(item.createdAt?.S, item.expiresAt?.N) ?? 0);

/**
 * The tables' rules: a delivery for its state's retention (a dead letter is archived, and
 * deleted, after deadLetterDays; a delivered row goes by TTL after deliveredDays); an attempt by
 * its own TTL, which the archiver leaves it to (measured: expiresAt − startedAt);
 * an event and a manifest by their TTL, at least the default deadline's (eventKeptFor: the
 * bench's subscriptions retry for 300 s only), so an event a dead letter kept longer is measured so.
 */
const KEEP_RULES: Partial<Record<TableKey, KeepRule>> = {
  deliveries: {
    days: (item, p) => (deadLetter(item) ? p.deadLetterDays : deliveredKeptFor(p).days),
    rule: (p) =>
      `a delivered row ${deliveredKeptFor(p).rule}; a dead letter deadLetterDays ${p.deadLetterDays} (the archiver then moves it to S3)`,
  },
  attempts: {
    days: (item, p) => daysBetween(item.startedAt?.S, item.expiresAt?.N) ?? deliveredKeptFor(p).days,
    rule: () =>
      `until its own TTL, a dead letter's too (the archiver leaves them to it): its run's deadline + the longer of a dead letter's and a delivered row's stay + a day (measured: expiresAt − startedAt)`,
  },
  events: {
    days: byOwnTtlAtLeastTheEvents,
    rule: (p) =>
      `its TTL, at least ${eventKeptFor(p).rule}; a dead letter moves it out to its own (measured: expiresAt − createdAt)`,
  },
  ingestManifests: {
    days: byOwnTtlAtLeastTheEvents,
    rule: () => `the events TTL, which each publish batch's manifest carries too (it is the event log)`,
  },
};

const ASSUMED: KeepRule = {
  days: (_, p) => deliveredKeptFor(p).days,
  rule: (p) => `${deliveredKeptFor(p).rule}: assumed, the bench knows no retention rule for this table`,
};

/**
 * The storage parts of one run: the rows it left behind, per `per` (the run's events, or its
 * deliveries), in every table but subscriptions (not per delivery), each row kept by its table's
 * rule (KEEP_RULES); a part's days are the byte-weighted mean of its rows'.
 */
export function keptParts(
  kept: Partial<Record<TableKey, { readonly kept: ReadonlyMap<string, Item> }>>,
  per: number,
  p: retention.RetentionPolicy = retention.DEFAULT_RETENTION,
): StoragePart[] {
  const tables = new Set<TableKey>(['events', 'deliveries', ...(Object.keys(kept) as TableKey[])]);
  tables.delete('subscriptions');
  return [...tables].flatMap((table) => {
    const rows = [...(kept[table]?.kept.values() ?? [])];
    if (rows.length === 0 && table !== 'events' && table !== 'deliveries') return [];
    const keep = KEEP_RULES[table] ?? ASSUMED;
    let bytes = 0;
    let byteDays = 0;
    for (const item of rows) {
      const b = billedBytes(table, item);
      bytes += b;
      byteDays += b * keep.days(item, p);
    }
    const days = bytes > 0 ? byteDays / bytes : keep.days({}, p);
    return [
      {
        table,
        rowsPerEvent: rows.length / per,
        bytesPerRow: rows.length ? bytes / rows.length : 0,
        keptFor: { days, rule: `${days.toFixed(1)} days on average: ${keep.rule(p)}` },
      },
    ];
  });
}

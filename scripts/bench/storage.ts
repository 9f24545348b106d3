import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TABLES, type TableKey } from '#config/topology.ts';
import * as retention from '#domain/retention.ts';
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

type RetentionModule = { readonly DEFAULT_RETENTION: retention.RetentionPolicy; readonly eventTtlFor?: unknown };

/**
 * Days an event row stays: what `eventTtlFor` (lambdas/domain/retention.ts) answers for the
 * default policy when it exists, else the rule the event store applies today (deadLetterDays × 2
 * + ttlSafetyMarginDays). Its answer is read as an epoch time in seconds (as `ttlFor`'s) or ms.
 */
export function eventKeptFor(mod: RetentionModule = retention as unknown as RetentionModule): KeptFor {
  const p = mod.DEFAULT_RETENTION;
  const fallback = {
    days: p.deadLetterDays * 2 + p.ttlSafetyMarginDays,
    rule: `events TTL deadLetterDays × 2 + ttlSafetyMarginDays = ${p.deadLetterDays} × 2 + ${p.ttlSafetyMarginDays} (retention.ts exports no eventTtlFor; the event store's rule today)`,
  };
  if (typeof mod.eventTtlFor !== 'function') return fallback;
  const t0 = Date.UTC(2026, 0, 1);
  const fn = mod.eventTtlFor as (at: number | string, policy: retention.RetentionPolicy) => unknown;
  let answer = Number(fn(t0, p));
  if (!Number.isFinite(answer)) answer = Number(fn(new Date(t0).toISOString(), p));
  const days = answer > 1e11 ? (answer - t0) / (DAY_S * 1000) : (answer - t0 / 1000) / DAY_S;
  if (!(days > 0 && days < 100_000))
    return { ...fallback, rule: `${fallback.rule}; eventTtlFor answered ${String(answer)}, not an epoch time` };
  return {
    days,
    rule: `the events TTL, eventTtlFor(createdAt, DEFAULT_RETENTION) − createdAt (deliveredDays ${p.deliveredDays} + ttlSafetyMarginDays ${p.ttlSafetyMarginDays} by today's rule); an upper bound where the archiver deletes the event with its deliveries`,
  };
}

/** Days delivered deliveries stay: TTL deletes them after deliveredDays, or the archiver moves them then. */
export function deliveredKeptFor(p: retention.RetentionPolicy = retention.DEFAULT_RETENTION): KeptFor {
  return {
    days: p.deliveredDays,
    rule: p.archiveDelivered
      ? `deliveredDays ${p.deliveredDays} (the archiver then moves the row and its attempts to S3; TTL at +${p.ttlSafetyMarginDays} days is the net)`
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

/**
 * The storage parts of one run: the rows it left behind, per event published, in every table but
 * subscriptions (not per event). Events stay for their TTL, deliveries and attempts for the
 * delivered retention; a table the rules here do not know is assumed kept like the deliveries.
 */
export function keptParts(
  kept: Partial<Record<TableKey, { readonly kept: ReadonlyMap<string, Item> }>>,
  events: number,
): StoragePart[] {
  const tables = new Set<TableKey>(['events', 'deliveries', ...(Object.keys(kept) as TableKey[])]);
  tables.delete('subscriptions');
  return [...tables].flatMap((table) => {
    const rows = [...(kept[table]?.kept.values() ?? [])];
    if (rows.length === 0 && table !== 'events' && table !== 'deliveries') return [];
    const delivered = deliveredKeptFor();
    const known = table === 'deliveries' || table === 'attempts';
    // A publish batch's manifest is the event log, kept as long as its events (the same TTL).
    const manifest =
      table === 'ingestManifests'
        ? {
            ...eventKeptFor(),
            rule: `the events TTL, which each publish batch's manifest carries too (it is the event log)`,
          }
        : undefined;
    const keptFor =
      table === 'events'
        ? eventKeptFor()
        : (manifest ??
          (known
            ? delivered
            : { ...delivered, rule: `${delivered.rule}: assumed, the bench knows no retention rule for this table` }));
    const bytes = rows.reduce((s, item) => s + billedBytes(table, item), 0);
    return [{ table, rowsPerEvent: rows.length / events, bytesPerRow: rows.length ? bytes / rows.length : 0, keptFor }];
  });
}

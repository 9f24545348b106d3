import { itemBytes } from './item-size.ts';
import type { AttemptRecord, Delivery, InlineAttempt } from './types.ts';

/**
 * A write costs a unit per started KB of the row, and the row is written on every attempt. The
 * earlier attempts of a delivery therefore stay on its row (`earlierAttempts`) while the row
 * stays within one unit; the first that would take it past goes to the attempts table, as
 * every later one does (a put each, 1 WRU, and 121 days of storage). Most retried deliveries
 * (a few attempts with short answers) then write one unit an attempt, not two.
 */
export const ROW_WRITE_UNIT_BYTES = 1024;

/**
 * What a store adds to a delivery's row beyond its own fields: its key (the subscription's
 * listing shard and `<createdAt>#<id>`), the index attributes of its state and its TTL. An
 * upper bound, checked against the DynamoDB adapter's items in its tests.
 */
export const ROW_BOOKKEEPING_BYTES = 256;

/** An attempt a row holds inline, as a record of the log. */
export function inlineRecord(deliveryId: string, attempt: InlineAttempt | undefined): AttemptRecord | undefined {
  return attempt && { deliveryId, ...attempt };
}

type InlineLog = Pick<Delivery, 'attemptSeq' | 'lastAttempt' | 'earlierAttempts' | 'firstAttempt'>;

/**
 * The attempts a row holds before its latest, oldest first: `earlierAttempts` (each from the
 * first on, while they fit) or, on a row an earlier version wrote, its first (`firstAttempt`).
 * They are always the oldest of the log: once one attempt has gone to the table, none is kept
 * inline again but the latest.
 */
export function olderInline(d: Pick<Delivery, 'earlierAttempts' | 'firstAttempt'>): readonly InlineAttempt[] {
  return d.earlierAttempts ?? (d.firstAttempt ? [d.firstAttempt] : []);
}

/**
 * A delivery's whole attempt log, oldest first: the attempts table's rows plus the attempts its
 * row holds inline: its latest (`lastAttempt`) and the older ones (`olderInline`). The table
 * wins on a duplicate seq (an archive restore writes the inline attempts there too).
 */
export function attemptLog(
  delivery: Pick<Delivery, 'id' | 'lastAttempt' | 'earlierAttempts' | 'firstAttempt'>,
  stored: readonly AttemptRecord[],
): readonly AttemptRecord[] {
  const seqs = new Set(stored.map((a) => a.seq));
  const inline: AttemptRecord[] = [];
  for (const a of [delivery.lastAttempt, ...olderInline(delivery)]) {
    if (a === undefined || seqs.has(a.seq)) continue;
    seqs.add(a.seq);
    inline.push(inlineRecord(delivery.id, a)!);
  }
  return inline.length === 0 ? stored : [...inline, ...stored].sort((a, b) => a.seq - b.seq);
}

/**
 * Where the attempt a new one replaces as the row's latest goes: onto the row with the older
 * ones (`earlierAttempts`), while every attempt so far is on the row and the row as written
 * (`next`: the row as the outcome leaves it, the row's list with it, plus the longer list; its
 * own fields, the store's allowance beside) stays within one write unit; otherwise to the
 * attempts table (`logged`), the row's list as it was. The row to write, and what to log first.
 */
export function placeReplaced(
  row: InlineLog,
  next: Delivery,
): { readonly row: Delivery; readonly logged?: InlineAttempt } {
  const replaced = row.lastAttempt;
  if (replaced === undefined) return { row: next };
  if (row.firstAttempt !== undefined || hasLoggedAttempts(row)) return { row: next, logged: replaced };
  const longer = { ...next, earlierAttempts: [...(row.earlierAttempts ?? []), replaced] };
  // `lastResponse` is read back from the latest attempt, never stored.
  const fits = itemBytes({ ...longer, lastResponse: undefined }) + ROW_BOOKKEEPING_BYTES <= ROW_WRITE_UNIT_BYTES;
  return fits ? { row: longer } : { row: next, logged: replaced };
}

/**
 * The row with its last response read back from its inline latest attempt, where this version
 * keeps it once (a row an earlier version wrote may hold it itself, or in its inline first attempt).
 */
export function withLastResponse<
  D extends Pick<Delivery, 'lastResponse' | 'lastAttempt' | 'firstAttempt' | 'attemptSeq'>,
>(d: D): D {
  if (d.lastResponse !== undefined) return d;
  const inherited =
    d.lastAttempt?.responseSnippet ?? (d.attemptSeq === 1 ? d.firstAttempt?.responseSnippet : undefined);
  return inherited === undefined ? d : { ...d, lastResponse: inherited };
}

/**
 * Whether the attempts table can hold any of the delivery's attempts: not when every attempt it
 * made is on its row (a delivery attempted once, as most dead letters of a 4xx are, or a few
 * times with short answers).
 */
export function hasLoggedAttempts(d: InlineLog): boolean {
  const inline = new Set([d.lastAttempt?.seq, ...olderInline(d).map((a) => a.seq)]);
  for (let seq = 1; seq <= d.attemptSeq; seq++) if (!inline.has(seq)) return true;
  return false;
}

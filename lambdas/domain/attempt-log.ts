import type { AttemptRecord, Delivery, InlineAttempt } from './types.ts';

/** An attempt a row holds inline, as a record of the log. */
export function inlineRecord(deliveryId: string, attempt: InlineAttempt | undefined): AttemptRecord | undefined {
  return attempt && { deliveryId, ...attempt };
}

/**
 * A delivery's whole attempt log, oldest first: the attempts table's rows plus the attempts its
 * row holds inline: its latest (`lastAttempt`; it goes to the table when the next attempt
 * replaces it) and, on a row an earlier version wrote, its first (`firstAttempt`). The table
 * wins on a duplicate seq (an archive restore writes the inline attempts there too).
 */
export function attemptLog(
  delivery: Pick<Delivery, 'id' | 'lastAttempt' | 'firstAttempt'>,
  stored: readonly AttemptRecord[],
): readonly AttemptRecord[] {
  const seqs = new Set(stored.map((a) => a.seq));
  const inline: AttemptRecord[] = [];
  for (const a of [delivery.lastAttempt, delivery.firstAttempt]) {
    if (a === undefined || seqs.has(a.seq)) continue;
    seqs.add(a.seq);
    inline.push(inlineRecord(delivery.id, a)!);
  }
  return inline.length === 0 ? stored : [...inline, ...stored].sort((a, b) => a.seq - b.seq);
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
 * made is on its row (a delivery attempted once, as most dead letters of a 4xx are).
 */
export function hasLoggedAttempts(d: Pick<Delivery, 'attemptSeq' | 'lastAttempt' | 'firstAttempt'>): boolean {
  const inline = new Set([d.lastAttempt?.seq, d.firstAttempt?.seq]);
  for (let seq = 1; seq <= d.attemptSeq; seq++) if (!inline.has(seq)) return true;
  return false;
}

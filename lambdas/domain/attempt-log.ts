import type { AttemptRecord, Delivery } from './types.ts';

/**
 * A delivery's whole attempt log, oldest first: the attempts table's rows plus the first
 * attempt its row holds inline (the happy path writes no attempts row). The table wins on a
 * duplicate seq (an archive restore writes the inline attempt there too).
 */
export function attemptLog(delivery: Pick<Delivery, 'id' | 'firstAttempt'>, stored: readonly AttemptRecord[]): readonly AttemptRecord[] {
  const inline = delivery.firstAttempt;
  if (!inline || stored.some((a) => a.seq === inline.seq)) return stored;
  return [{ deliveryId: delivery.id, ...inline }, ...stored].sort((a, b) => a.seq - b.seq);
}

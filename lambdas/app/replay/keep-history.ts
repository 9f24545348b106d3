import { hasLoggedAttempts } from '#domain/attempt-log.ts';
import { attemptTtlFor, deadLetterEventTtl } from '#domain/retention.ts';
import type { Delivery } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';

export type KeepHistoryDeps = Pick<Deps, 'events' | 'attempts' | 'retention'>;

/**
 * Before a delivery starts a new run (a replay, a Retry now) that gives up at `giveUpAtMs`: its
 * body and its attempt log are kept for as long as that run's outcome may be read, even a dead
 * letter at the new deadline. Their TTLs were set for the run before; a move out is a write per
 * row, paid here, on the rare new run, rather than by every row from the start. A delivery whose
 * attempts are all on its row has none to move: the query for them is not made.
 */
export async function keepHistoryFor(
  deps: KeepHistoryDeps,
  d: Pick<Delivery, 'id' | 'eventId' | 'attemptSeq' | 'lastAttempt' | 'earlierAttempts' | 'firstAttempt'>,
  giveUpAtMs: number,
): Promise<void> {
  await Promise.all([
    deps.events.extendRetention(d.eventId, deadLetterEventTtl(giveUpAtMs, deps.retention)),
    hasLoggedAttempts(d) && deps.attempts.extendRetention(d.id, attemptTtlFor(giveUpAtMs, deps.retention)),
  ]);
}

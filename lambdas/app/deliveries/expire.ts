import { OUTCOME_METRICS } from '#config/topology.ts';
import type { Deps } from '#app/deps.ts';
import { recordDeadLetter } from '#app/subscriptions/dead-letter-streak.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { iso } from '#domain/time.ts';
import type { Delivery, Expectation } from '#domain/types.ts';

/**
 * Expires a pending delivery past its deadline, with no attempt (the sweeper's, or one held back
 * by the rate limit): a dead letter like any other, its event's body kept as long, its
 * subscription's streak counted. False when the row had moved on.
 */
export async function expire(
  deps: Pick<Deps, 'deliveries' | 'events' | 'subscriptions' | 'metrics' | 'autoPause' | 'retention'>,
  at: { readonly row: Delivery; readonly expect: Expectation },
  reason: string,
  nowMs: number,
): Promise<boolean> {
  // The body first outlives the dead letter, so a crash between the two leaves a body kept too long, never a dead letter without one.
  await deps.events.extendRetention(at.row.eventId, deadLetterEventTtl(nowMs, deps.retention));
  if (!(await deps.deliveries.write('expire', { ...at.row, lastError: reason, updatedAt: iso(nowMs) }, at.expect)))
    return false;
  for (const metric of OUTCOME_METRICS.give_up) deps.metrics.count(metric);
  await recordDeadLetter(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, at.row.subscriptionId, nowMs);
  return true;
}

import { retriedNow, retryNowVerdict, RETRY_NOW_LEAD_SECONDS, type RetryNowVerdict } from '#domain/retry-now.ts';
import { expectationOf, type Delivery } from '#domain/types.ts';
import { type Principal, visibleDelivery } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { withEventTypes } from '#app/deliveries/reads.ts';
import type { UnwrittenDeps } from '#app/deliveries/unwritten.ts';
import { ConflictError } from '#app/errors.ts';
import { SEND_NOW_ACTION, takeTenantAction } from '#app/tenants/customer-limit.ts';
import { keepHistoryFor } from './keep-history.ts';
import type { ReplayDeliveryDeps } from './replay-delivery.ts';

/** What Retry now uses: a single replay's, and the tenant limit it shares with it. */
export type RetryNowDeps = ReplayDeliveryDeps & UnwrittenDeps & Pick<Deps, 'rateLimiter' | 'customerReplayLimit'>;

/**
 * Retry now: a pending delivery waiting out its backoff is attempted at once, its backoff and
 * deadline started afresh as a replay starts them (domain/retry-now.ts). One write of its row,
 * conditional on the attempt number read, then a due message. The retry message already on its
 * way (delayed to the old due time) is made harmless by the subscription's mark, written first:
 * it reads the row before any POST and finds it moved on. Anything with nothing to hurry is a
 * ConflictError (409) saying why, before the tenant's limit is counted; the limit is Resend's,
 * shared with it (SEND_NOW_ACTION). The attempt log records it as it records a replay: the
 * next attempt's `attempt` restarts at 1, its `seq` goes on.
 */
export async function retryNowAs(deps: RetryNowDeps, principal: Principal, id: string): Promise<Delivery> {
  const delivery = await visibleDelivery(deps, principal, id);
  const subscription = await deps.subscriptions.get(delivery.subscriptionId);
  const nowMs = deps.clock.now();
  const verdict = retryNowVerdict(delivery, subscription, nowMs);
  if (verdict.kind !== 'retry') throw refused(delivery, verdict);
  await takeTenantAction(deps, principal, {
    ...SEND_NOW_ACTION,
    limit: deps.customerReplayLimit,
    subscriptionId: delivery.subscriptionId,
  });
  const policy = subscription?.retryPolicy ?? deps.defaultRetryPolicy;
  const row = retriedNow(delivery, nowMs, policy.deadlineSeconds);
  // A fresh deadline, as a replay's: the body and the log must outlive it.
  await keepHistoryFor(deps, row, Date.parse(row.giveUpAt));
  // Before the row moves: a mark whose write is not followed by one costs some messages a read, nothing more.
  await deps.subscriptions.markRetriedNow(delivery.subscriptionId, row.updatedAt);
  if (!(await deps.deliveries.write('retry_now', row, expectationOf(delivery))))
    throw new ConflictError(
      `delivery ${id} changed while it was being retried (an attempt was recorded meanwhile); reload it to see its outcome`,
    );
  // Should this send fail, the row is due and the sweeper sends it once its grace has passed.
  await deps.queue.enqueue([dueMessage(row)]);
  const [retried] = await withEventTypes(deps, [row]);
  return retried!;
}

function refused(d: Delivery, verdict: Exclude<RetryNowVerdict, { kind: 'retry' }>): ConflictError {
  const id = d.id;
  switch (verdict.kind) {
    case 'finished':
      return new ConflictError(
        `delivery ${id} is ${verdict.state}: it waits for no retry; replay it instead (POST /v1/deliveries/${id}/replay)`,
      );
    case 'claimed':
      return new ConflictError(
        `delivery ${id} is ${d.state}: an attempt holds it; the sweeper hands it back once that claim runs out`,
      );
    case 'ended':
      return new ConflictError(`delivery ${id} will not be attempted again (${verdict.reason})`);
    case 'paused':
      return new ConflictError(
        `delivery ${id} belongs to subscription ${d.subscriptionId}, which is paused; resume it and its waiting deliveries are sent at once`,
      );
    case 'not_attempted':
      return new ConflictError(`delivery ${id} has not been attempted yet: its first attempt is already on its way`);
    case 'due':
      return new ConflictError(
        `delivery ${id} is due (its next attempt at ${verdict.at}, under ${RETRY_NOW_LEAD_SECONDS} s away or past): that attempt is on its way or being made; wait for its outcome`,
      );
  }
}

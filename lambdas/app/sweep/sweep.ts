import type { Deps } from '#app/deps.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { allows } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import { METRICS } from '#config/topology.ts';
import { recordDeadLetter } from '#app/send/health.ts';
import { finishPublishes, type FinishPublishDeps } from '#app/sweep/finish-publish.ts';
import { buildRoutes, repairRoutes } from '#app/subscriptions/routing.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type SweepDeps = Pick<Deps, 'deliveries' | 'subscriptions' | 'routes' | 'queue' | 'clock' | 'metrics' | 'autoPause' | 'retention'> & FinishPublishDeps;

export interface SweepOptions {
  /** A pending delivery this far past due has lost its message. */
  readonly graceSeconds: number;
  /** Deliveries looked at per run; the next run picks up the rest. */
  readonly limit?: number;
}

export interface SweepReport {
  readonly examined: number;
  readonly expired: number;
  readonly requeued: number;
  readonly released: number;
  /** Publishes that had stopped half-way, finished (app/sweep/finish-publish.ts), and the deliveries they enqueued. */
  readonly finishedPublishes: number;
  readonly finishedDeliveries: number;
  /** Routing changes whose writer stopped between the subscription row and its entries, finished (app/subscriptions/routing.ts). */
  readonly routesRepaired: number;
}

/** How long one run may spend building the routing index of a deployment from before it; the next run resumes. */
const ROUTE_BUILD_BUDGET_MS = 120_000;

/**
 * The safety net behind the queue: finishes routing changes and publishes that stopped half-way
 * (and builds the routing index of a deployment from before it), expires pending deliveries past their deadline,
 * re-enqueues pending ones whose message was lost, and hands back in-flight ones whose
 * worker died (their claim lease ran out). Every write is conditional, so a sweep racing a
 * sender changes nothing the sender already changed.
 */
export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const nowMs = deps.clock.now();
  const now = iso(nowMs);
  const routesRepaired = await repairRoutes(deps);
  await buildRoutes(deps, ROUTE_BUILD_BUDGET_MS);
  const finished = await finishPublishes(deps, iso(nowMs - options.graceSeconds * 1000), options.limit ?? 1000);
  const due = await deps.deliveries.listDue(iso(nowMs - options.graceSeconds * 1000), options.limit ?? 1000);
  const deliveries = await deps.deliveries.getMany(due.map((d) => d.id));
  let expired = 0;
  let released = 0;
  const requeue: { deliveryId: string; subscriptionId: string }[] = [];
  for (const d of deliveries) {
    // Which write to try follows from the state machine; each write re-checks its own condition.
    if (allows('release', d.state)) {
      if (!d.leaseUntil || d.leaseUntil >= now) continue; // a live worker still holds it
      if (await deps.deliveries.release(d.id, d.attemptSeq, now)) {
        released++;
        requeue.push({ deliveryId: d.id, subscriptionId: d.subscriptionId });
      }
    } else if (allows('expire', d.state) && d.giveUpAt <= now) {
      // As the sender does: the body outlives the dead letter, whatever happens between the two writes.
      await deps.events.extendRetention(d.eventId, deadLetterEventTtl(nowMs, deps.retention));
      if (await deps.deliveries.expire(d, `retry deadline ${d.giveUpAt} passed after ${d.attempts} attempts${d.lastError ? `; last error: ${d.lastError}` : ''}`, now)) {
        expired++;
        deps.metrics.count(METRICS.expired);
        deps.metrics.count(METRICS.deadLettered);
        // A dead letter like the sender's: it extends the subscription's streak and may auto-pause it.
        await recordDeadLetter(deps, deps.autoPause, d.subscriptionId, nowMs);
      }
    } else if (allows('reschedule', d.state)) {
      // Due now, so the claim condition holds when the new message arrives.
      if (await deps.deliveries.reschedule(d.id, d.nextAttemptAt, now, now)) {
        requeue.push({ deliveryId: d.id, subscriptionId: d.subscriptionId });
      }
    }
  }
  await deps.queue.enqueue(requeue);
  return { examined: deliveries.length, expired, requeued: requeue.length - released, released, finishedPublishes: finished.manifests, finishedDeliveries: finished.deliveries, routesRepaired };
}

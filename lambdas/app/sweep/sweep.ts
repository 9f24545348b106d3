import type { Deps } from '#app/deps.ts';
import { allows } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import { expire } from '#app/deliveries/expire.ts';
import { dueMessage } from '#app/deliveries/delivery-messages.ts';
import { expectationOf } from '#domain/types.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';
import { checkRun, finishPublishes, type FinishPublishDeps } from '#app/sweep/finish-publish.ts';
import { buildRoutes, repairRoutes } from '#app/subscriptions/routing.ts';
import { SWEEP_PASS_LIMIT, SWEEP_RUN_BUDGET_MS } from '#config/topology.ts';
import type { ReadPace } from '#app/read-pace.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type SweepDeps = Pick<
  Deps,
  'deliveries' | 'subscriptions' | 'routes' | 'queue' | 'clock' | 'metrics' | 'autoPause' | 'retention'
> &
  FinishPublishDeps;

export interface SweepOptions {
  /** A pending delivery this far past due has lost its message. */
  readonly graceSeconds: number;
  /** Publishes and deliveries looked at per pass (SWEEP_PASS_LIMIT); a run makes passes while they come back full. */
  readonly limit?: number;
  /** How long a run goes on starting passes (SWEEP_RUN_BUDGET_MS); the next run picks up the rest. */
  readonly budgetMs?: number;
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

/** What one pass over the due deliveries did (the rest of a report is the run's). */
type PassReport = Omit<SweepReport, 'finishedPublishes' | 'finishedDeliveries' | 'routesRepaired'>;

/** How long one run may spend building the routing index of a deployment from before it; the next run resumes. */
const ROUTE_BUILD_BUDGET_MS = 120_000;

/**
 * The safety net behind the queue: finishes routing changes and publishes that stopped half-way
 * (and builds the routing index of a deployment from before it), expires pending deliveries past their deadline,
 * re-enqueues pending ones whose message was lost, and hands back the rows an earlier version
 * left claimed by a worker that died. Every write is conditional on the row as it read it, so a
 * sweep racing a sender changes nothing the sender already changed.
 *
 * It works in passes of `limit` and goes on while a pass finds a full load, until caught up or
 * until SWEEP_RUN_BUDGET_MS has passed (runs a minute apart then never overlap): so it keeps up
 * with any publish rate its passes can read, instead of a fixed 1,000 publishes a minute.
 */
export async function sweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const deadlineMs = deps.clock.now() + (options.budgetMs ?? SWEEP_RUN_BUDGET_MS);
  const inBudget = () => deps.clock.now() < deadlineMs;
  const limit = options.limit ?? SWEEP_PASS_LIMIT;
  const cutoff = () => iso(deps.clock.now() - options.graceSeconds * 1000);
  const routesRepaired = await repairRoutes(deps);
  await buildRoutes(deps, ROUTE_BUILD_BUDGET_MS);
  // One pace for the whole run: its passes, publish checks and due rows alike, share the read rate.
  const run = checkRun(deps.clock, deadlineMs);
  let finishedPublishes = 0;
  let finishedDeliveries = 0;
  let full = true;
  let refused: { readonly error: unknown } | undefined;
  while (full && inBudget()) {
    try {
      const finished = await finishPublishes(deps, cutoff(), limit, run);
      finishedPublishes += finished.manifests;
      finishedDeliveries += finished.deliveries;
      full = finished.full;
    } catch (error) {
      // A throttled check keeps what it did (finish-publish.ts); the due deliveries are still swept, and the run then fails.
      refused = { error };
      break;
    }
  }
  const totals = { examined: 0, expired: 0, requeued: 0, released: 0 };
  let more = true;
  while (more && inBudget()) {
    const pass = await sweepDue(deps, cutoff(), limit, run.pace);
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += pass[k];
    // A full pass that changed something: there may be more; one that changed nothing would read the same rows again.
    more = pass.examined >= limit && pass.expired + pass.requeued + pass.released > 0;
  }
  if (refused) throw refused.error;
  return { ...totals, finishedPublishes, finishedDeliveries, routesRepaired };
}

/**
 * One pass over up to `limit` pending deliveries due before `cutoff`. The store lists a row by
 * the minute it is due in, so one due later within that minute may be listed too: read, and left
 * to its message.
 */
async function sweepDue(deps: SweepDeps, cutoff: string, limit: number, pace: ReadPace): Promise<PassReport> {
  const due = await deps.deliveries.listDue(cutoff, limit);
  await pace.take(due.length);
  const nowMs = deps.clock.now();
  const now = iso(nowMs);
  const deliveries = await deps.deliveries.getMany(due.map((d) => d.id));
  let expired = 0;
  let released = 0;
  const requeue: DeliveryMessage[] = [];
  for (const d of deliveries) {
    if (allows('release', d.state)) {
      // A row an earlier version left claimed: handed back once its lease has run out.
      if (d.leaseUntil && d.leaseUntil < now && (await deps.deliveries.release(d.id, d.attemptSeq, now))) {
        released++;
        requeue.push(dueMessage(d));
      }
    } else if (allows('expire', d.state) && d.giveUpAt <= now) {
      // A dead letter like the sender's: its body kept, its subscription's streak counted.
      const reason = `retry deadline ${d.giveUpAt} passed after ${d.attempts} attempts${d.lastError ? `; last error: ${d.lastError}` : ''}`;
      if (await expire(deps, { row: d, expect: expectationOf(d) }, reason, nowMs)) expired++;
    } else if (allows('reschedule', d.state) && d.nextAttemptAt < cutoff) {
      // Its message was lost: due now, and a message naming its attempt number (one a late copy records meanwhile makes it send nothing).
      if (await deps.deliveries.write('reschedule', { ...d, nextAttemptAt: now, updatedAt: now }, expectationOf(d)))
        requeue.push(dueMessage(d));
    }
  }
  await deps.queue.enqueue(requeue);
  return { examined: deliveries.length, expired, requeued: requeue.length - released, released };
}

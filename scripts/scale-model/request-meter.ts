import { PATH_FUNCTIONS } from '../bench/cost-model.ts';
import { PRICES } from '../bench/prices.ts';
import type { Model } from './model.ts';

/** What the model's services had been asked for at one moment; every counter only grows. */
export interface RequestCounters {
  readonly invocations: Readonly<Record<(typeof PATH_FUNCTIONS)[number], number>>;
  /** Every queue's billed requests: every call but a receive that returned nothing (a mapping's idle long polls, a fixed cost). */
  readonly sqsRequests: number;
  /** Write and read units the path's functions used, by table (its indexes included). */
  readonly units: Readonly<Record<string, { readonly wcu: number; readonly rcu: number }>>;
}

/** What a run's deliveries cost in requests, as the model metered them between two counters. */
export interface RequestFigures {
  readonly invocations: Readonly<Record<(typeof PATH_FUNCTIONS)[number], number>>;
  readonly sqsRequests: number;
  readonly wru: number;
  readonly rru: number;
  /** Write units by table, largest first. */
  readonly wruByTable: Readonly<Record<string, number>>;
  /** Events a fan-out invocation carried: how much a stream batch shares at this rate. */
  readonly eventsPerFanOut?: number;
  /** The requests per million deliveries at list prices (no Lambda duration: the model's time is simulated). */
  readonly dollarsPerMillion: {
    readonly dynamodb: number;
    readonly sqs: number;
    readonly lambda: number;
    readonly total: number;
  };
}

const isPathCaller = (caller: string) => (PATH_FUNCTIONS as readonly string[]).includes(caller.split(' ')[0]!);

export function requestCounters(model: Model): RequestCounters {
  const invocations = Object.fromEntries(
    PATH_FUNCTIONS.map((fn) => [fn, model.pools[fn].stats().invocations]),
  ) as RequestCounters['invocations'];
  let sqsRequests = 0;
  for (const queue of Object.values(model.queues)) {
    const stats = queue.stats();
    for (const [call, count] of Object.entries(stats.calls)) if (call !== 'ReceiveMessage') sqsRequests += count;
    sqsRequests += stats.nonEmptyReceives;
  }
  const units: Record<string, { wcu: number; rcu: number }> = {};
  for (const table of Object.values(model.dynamo.report().tables)) {
    const sum = { wcu: 0, rcu: 0 };
    for (const usage of [table, ...Object.values(table.indexes)])
      for (const [caller, use] of Object.entries(usage.byCaller))
        if (isPathCaller(caller)) {
          sum.wcu += use.wcu;
          sum.rcu += use.rcu;
        }
    units[table.table.replace(/^hookline-/, '')] = sum;
  }
  return { invocations, sqsRequests, units };
}

/** The requests each delivery made between `before` and `after`, and their price a million. */
export function requestFigures(
  before: RequestCounters,
  after: RequestCounters,
  deliveries: number,
  events: number,
): RequestFigures | undefined {
  if (deliveries <= 0) return undefined;
  const per = (n: number) => n / deliveries;
  const invocations = Object.fromEntries(
    PATH_FUNCTIONS.map((fn) => [fn, per(after.invocations[fn] - before.invocations[fn])]),
  ) as RequestFigures['invocations'];
  const wruByTable: Record<string, number> = {};
  let wru = 0;
  let rru = 0;
  for (const [table, use] of Object.entries(after.units)) {
    const was = before.units[table] ?? { wcu: 0, rcu: 0 };
    const w = per(use.wcu - was.wcu);
    wru += w;
    rru += per(use.rcu - was.rcu);
    if (w > 0) wruByTable[table] = w;
  }
  const sqsRequests = per(after.sqsRequests - before.sqsRequests);
  const fanOuts = after.invocations.ingest - before.invocations.ingest;
  const dynamodb = 1e6 * (wru * PRICES.dynamodbWriteRequestUnit + rru * PRICES.dynamodbReadRequestUnit);
  const sqs = 1e6 * sqsRequests * PRICES.sqsRequest;
  const lambda = 1e6 * Object.values(invocations).reduce((a, b) => a + b, 0) * PRICES.lambdaRequest;
  return {
    invocations,
    sqsRequests,
    wru,
    rru,
    wruByTable: Object.fromEntries(Object.entries(wruByTable).sort((a, b) => b[1] - a[1])),
    ...(fanOuts > 0 ? { eventsPerFanOut: events / fanOuts } : {}),
    dollarsPerMillion: { dynamodb, sqs, lambda, total: dynamodb + sqs + lambda },
  };
}

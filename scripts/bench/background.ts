import { METRICS } from '#config/topology.ts';
import { type BenchStack, startBenchStack } from './bench-stack.ts';
import { RETRY_EVERY_SECOND } from './cost.ts';
import type { Usage } from './sdk-meter.ts';
import { sleep } from './stats.ts';

/** What the archiver spends on one delivered delivery when it moves it to S3. */
export interface ArchivalCost {
  readonly deliveries: number;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly s3Puts: number;
  /** Every other S3 request (the verifying reads, listings), priced as GETs. */
  readonly s3OtherRequests: number;
  /** Bytes of archive object per delivery (what S3 storage is billed for). */
  readonly s3Bytes: number;
}

/** Per-delivery figures from the metered calls of one archive run. */
export function archivalPerDelivery(usage: Usage, deliveries: number): ArchivalCost {
  const calls = Object.entries(usage.calls);
  const sum = (prefix: string, pick: (c: Usage['calls'][string]) => number) =>
    calls.filter(([k]) => k.startsWith(prefix)).reduce((n, [, c]) => n + pick(c), 0);
  const per = (n: number) => n / deliveries;
  return {
    deliveries,
    writeUnits: per(sum('DynamoDB ', (c) => c.writeUnits + c.indexWriteUnits) + usage.conditionFailures),
    readUnits: per(sum('DynamoDB ', (c) => c.readUnits)),
    s3Puts: per(sum('S3 PutObject', (c) => c.count)),
    s3OtherRequests: per(sum('S3 ', (c) => c.count) - sum('S3 PutObject', (c) => c.count)),
    s3Bytes: per(usage.s3PutBytes),
  };
}

/** One archive run over the `events` rows past their retention, metered per row. */
async function meteredArchive(stack: BenchStack, events: number): Promise<ArchivalCost> {
  stack.sdk.reset();
  const report = (await stack.runtime.invoke('archiver', { action: 'archive' })) as { archived?: number };
  if (report.archived !== events)
    throw new Error(`the archive run archived ${report.archived} of ${events}: ${JSON.stringify(report)}`);
  return archivalPerDelivery(stack.sdk.reset(), events);
}

/** Each figure of `a` with the same figure of `b`, combined by `op` (the deliveries `a`'s). */
export function combineArchival(a: ArchivalCost, b: ArchivalCost, op: (x: number, y: number) => number): ArchivalCost {
  const each = (k: Exclude<keyof ArchivalCost, 'deliveries'>) => op(a[k], b[k]);
  return {
    deliveries: a.deliveries,
    writeUnits: each('writeUnits'),
    readUnits: each('readUnits'),
    s3Puts: each('s3Puts'),
    s3OtherRequests: each('s3OtherRequests'),
    s3Bytes: each('s3Bytes'),
  };
}

/** DynamoDB units of one scheduled run. */
export interface RunCost {
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly ms: number;
}

/** What the functions no delivery invokes spend: the archiver per delivery, the others per run. */
export interface BackgroundCost {
  /** A row attempted once (its attempt on the row itself, none in the attempts table). */
  readonly archival: ArchivalCost;
  /**
   * What one row of the attempts table adds to its delivery's archival: measured as the archival
   * of rows attempted twice (one attempt in the table) less `archival`.
   */
  readonly archivalPerLoggedAttempt: ArchivalCost;
  /** The sweeper's check of each publish's manifest once its grace has passed, per delivery. */
  readonly sweepPerDelivery: RunCost;
  /** A scheduled run with nothing to do (sweeper, replay), and the notifier's per subscription. */
  readonly idleRun: Readonly<Record<'sweeper' | 'replay', RunCost>>;
  readonly notifierPerSubscription: RunCost;
}

/** Subscriptions the notifier's run is measured over (its reads grow with them). */
const NOTIFIER_SUBSCRIPTIONS = 10;

/**
 * The background bill, measured: `events` first-try deliveries through the ingest queue to one
 * of NOTIFIER_SUBSCRIPTIONS subscriptions, with a delivered retention of 0 days (archivable at
 * once) and a sweep grace of 1 s (every manifest due by the time the sweep runs); then, metered one at a time, the sweep
 * that checks their manifests, an idle sweep and replay run, a notifier run, and one archive
 * run over all of them, as the daily schedule would make it. Then as many again, each answered
 * 500 at its first attempt, and a second archive run over those: what an attempt in the
 * attempts table adds to a row's archival (a retry's, a dead letter's).
 */
export async function measureBackground(events: number): Promise<BackgroundCost> {
  let failFirst = false;
  const stack = await startBenchStack({
    meter: true,
    answer: (_id, attempt) => ({ status: failFirst && attempt === 1 ? 500 : 200 }),
    // Delivered rows archived here: what one row costs the archiver is what every dead letter costs it.
    env: { HOOKLINE_RETENTION_DELIVERED_DAYS: '0', HOOKLINE_ARCHIVE_DELIVERED: '1', HOOKLINE_SWEEP_GRACE_SECONDS: '1' },
  });
  try {
    await stack.subscribe(1, 'bench.archive', RETRY_EVERY_SECOND);
    await stack.subscribe(NOTIFIER_SUBSCRIPTIONS - 1, 'bench.quiet');
    await stack.publishIngest(events, 'bench.archive');
    await stack.waitCount(METRICS.succeeded, events, 120_000);
    await sleep(2000);
    stack.sdk.attachS3(stack.runtime.clients.s3);
    const metered = async (run: () => Promise<unknown>, per: number): Promise<RunCost> => {
      stack.sdk.reset();
      const started = performance.now();
      await run();
      const ms = performance.now() - started;
      const cost = archivalPerDelivery(stack.sdk.reset(), per);
      return { writeUnits: cost.writeUnits, readUnits: cost.readUnits, ms: ms / per };
    };
    const sweepPerDelivery = await metered(() => stack.runtime.runSchedule('sweeper'), events);
    const idleRun = {
      sweeper: await metered(() => stack.runtime.runSchedule('sweeper'), 1),
      replay: await metered(() => stack.runtime.runSchedule('replay'), 1),
    };
    const notifierPerSubscription = await metered(() => stack.runtime.runSchedule('notifier'), NOTIFIER_SUBSCRIPTIONS);
    const archival = await meteredArchive(stack, events);

    failFirst = true;
    await stack.publishIngest(events, 'bench.archive');
    await stack.waitCount(METRICS.succeeded, 2 * events, 120_000);
    await sleep(2000);
    const retried = await meteredArchive(stack, events);
    return {
      archival,
      // None below 0: two runs' noise is not a negative cost.
      archivalPerLoggedAttempt: combineArchival(retried, archival, (x, y) => Math.max(0, x - y)),
      sweepPerDelivery,
      idleRun,
      notifierPerSubscription,
    };
  } finally {
    await stack.stop();
  }
}

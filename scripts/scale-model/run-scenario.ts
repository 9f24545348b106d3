import type { APIGatewayProxyResult } from 'aws-lambda';
import { LatencyHistogram, type RateLimitFigures, rateLimitFigures, type SecondSample } from './measures.ts';
import { apiRequest } from './api-events.ts';
import { buildModel, type Model } from './model.ts';
import type { Scenario } from './scenarios.ts';
import { type RequestFigures, requestCounters, requestFigures } from './request-meter.ts';
import { VirtualTime } from './virtual-time.ts';
import { INGEST_MANIFEST_SHARDS, localResourceName, TABLES } from '#config/topology.ts';

const START_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
/**
 * Subscriptions created at once before a run. Each creation writes the routing index's intent
 * and status items, two single keys of the routes table (1,000 WCU/s each), so creating faster
 * than a few hundred a second throttles there (docs/aws.md, "Scale model"); the setup stays under it.
 */
const SETUP_CONCURRENCY = 10;
/**
 * Dead letters a bulk replay's setup publishes a second, in batches of 100, each call refused
 * (a throttle, a 5xx) tried again after a second, as a producer would. As fast as the API takes
 * them passes the events table's ceiling (docs/aws.md, "What the model found"), so the setup
 * keeps to a rate the warmed tables take: 1,000,000 dead letters take about 3 simulated minutes.
 */
const DEAD_LETTER_SETUP_PER_SECOND = 6_000;
const hostOf = (i: number) => `r${i}.receivers.example`;
const indexOf = (host: string) => Number(host.slice(1, host.indexOf('.')));

/**
 * Deliveries of events published this far into the run count as settled too: a scenario starts
 * cold (the event source mappings at 5 batches, every cache empty, the hanging endpoints all
 * starting to hang at once), and the start's transient would otherwise be all a p99 shows.
 */
const SETTLED_AFTER_MS = 60_000;

/** Runs longer than this (simulated) print their progress each simulated minute; the quick ones do not. */
const PROGRESS_AFTER_MS = 300_000;

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly published: number;
  readonly publishRefused: Readonly<Record<string, number>>;
  readonly delivered: number;
  readonly duplicates: number;
  /** Accepted events no receiver got by the end (those still retrying against a failing receiver included). */
  readonly undelivered: number;
  /** Of those, by what their delivery row says at the end: dead-lettered, still on its way, or lost (no row, or one saying delivered). */
  readonly undeliveredBy: { readonly deadLettered: number; readonly onItsWay: number; readonly lost: number };
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly healthyP50Ms?: number;
  readonly healthyP99Ms?: number;
  /** The same, for events published after the first minute: the steady state, without the start's transient. */
  readonly settledHealthyP50Ms?: number;
  readonly settledHealthyP99Ms?: number;
  readonly peakDeliveriesPerSecond: number;
  /**
   * For a rate-limited scenario: the mean rate from the first delivery until the backlog was
   * gone (while it lasted, the subscription had more waiting than its limit), and the most
   * deliveries that began in any 1 s window (the rate gate's bound is L + ceil(L/10)).
   */
  readonly rateLimit?: RateLimitFigures;
  readonly meanDeliveriesPerSecond: number;
  readonly queueAgePeakSeconds: number;
  /** The slow lane's oldest message at its oldest (absent in runs recorded before it was measured). */
  readonly slowLaneAgePeakSeconds?: number;
  readonly inFlightPeak: number;
  readonly overLimitRefusals: number;
  readonly senderPeakConcurrency: number;
  /** The caps that peak is measured against (absent in runs recorded before the slow lane's followed the main lane's). */
  readonly senderCaps?: { readonly main: number; readonly slow: number };
  readonly lambda: Readonly<
    Record<string, { invocations: number; throttles: number; peak: number; coldStarts: number }>
  >;
  readonly dynamodb: ReturnType<Model['dynamo']['report']>;
  readonly sweeper: {
    readonly runs: number;
    /** The most any shard's watermark trailed the clock at the end of a run: how far behind the sweeper's check of publishes is. */
    readonly lagPeakSeconds: number;
    readonly longestRunSeconds: number;
    readonly requeued: number;
    readonly expired: number;
  };
  readonly replay?: { readonly replayed: number; readonly finishedAfterSeconds?: number };
  readonly handlerErrors: Readonly<Record<string, number>>;
  /** The requests each delivery made while measured (absent in runs recorded before they were metered). */
  readonly requests?: RequestFigures;
  readonly samples: readonly SecondSample[];
}

/** One scenario, start to finish, on its own fresh model and clock. */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const wallStart = performance.now();
  const time = new VirtualTime(START_MS, 7);
  time.enable();
  try {
    return await run(scenario, time, wallStart);
  } finally {
    time.disable();
  }
}

async function run(scenario: Scenario, time: VirtualTime, wallStart: number): Promise<ScenarioResult> {
  const totalEvents = Math.ceil(scenario.ratePerSecond * scenario.publishSeconds) + (scenario.replayDeadLetters ?? 0);
  const publishedAt = new Float64Array(totalEvents);
  const receipts = new Uint8Array(totalEvents);
  // 1 for an event the API accepted (202 or 200): the audit looks at these alone.
  const accepted = new Uint8Array(totalEvents);
  const latency = new LatencyHistogram();
  const healthyLatency = new LatencyHistogram();
  const settledHealthyLatency = new LatencyHistogram();
  let measuring = false;
  let measuredFrom = 0;
  let setupFailing = scenario.replayDeadLetters !== undefined;
  let deliveredThisSecond = 0;
  let publishedThisSecond = 0;
  let delivered = 0;
  let duplicates = 0;
  const hanging = new Set<number>();
  const model = buildModel({
    time,
    plan: (host, nowMs) => {
      const index = indexOf(host);
      if (setupFailing) return { kind: 'status', status: 400, latencyMs: 30 };
      const behaviour = scenario.receivers(index, nowMs - measuredFrom, () => time.random());
      if (behaviour.kind !== 'ok') hanging.add(index);
      return behaviour;
    },
    onReceipt: ({ eventId, host, atMs }) => {
      const seq = Number(eventId.slice(4));
      if (!(seq >= 0 && seq < totalEvents)) return;
      if (receipts[seq]! > 0) duplicates++;
      receipts[seq] = Math.min(255, receipts[seq]! + 1);
      if (receipts[seq] !== 1 || !measuring) return;
      delivered++;
      deliveredThisSecond++;
      const ms = atMs - publishedAt[seq]!;
      latency.add(ms);
      if (hanging.has(indexOf(host))) return;
      healthyLatency.add(ms);
      if (publishedAt[seq]! - measuredFrom >= SETTLED_AFTER_MS) settledHealthyLatency.add(ms);
    },
    ...(scenario.senderMaxConcurrency ? { senderMaxConcurrency: scenario.senderMaxConcurrency } : {}),
    ...(scenario.env ? { env: scenario.env } : {}),
  });

  /** One API call as a client sees it: Lambda's throttle, the function's answer, or its failure (a timeout, a crash) as the 502 API Gateway would give. */
  const api = async (method: string, path: string, body?: unknown): Promise<APIGatewayProxyResult | 'throttled'> => {
    try {
      const outcome = await model.pools.api.invoke(apiRequest(method, path, body));
      return outcome.kind === 'throttled' ? 'throttled' : outcome.value;
    } catch {
      return { statusCode: 502, body: '{"message":"Internal Server Error"}' };
    }
  };
  // A fresh deployment's first sweeper run marks its (empty) routing index built, as the
  // deployed sweeper does within its first minute; subscriptions created after it are indexed
  // as they are created, so no publish walks the subscriptions table.
  await time.runWhile(model.pools.sweeper.invoke(model.scheduledEvent()));
  const subscriptionIds = await time.runWhile(createSubscriptions(scenario, api));
  model.eventSources.start();

  let seq = 0;
  const refused: Record<string, number> = {};
  /** Publishes `events` in one call; true when the API accepted them. */
  const publish = async (events: { id: string; type: string; tenantId: string; payload: unknown }[]) => {
    for (const e of events) publishedAt[Number(e.id.slice(4))] = time.now();
    const answer =
      events.length === 1 && scenario.eventsPerCall === 1
        ? await api('POST', '/v1/events', events[0])
        : await api('POST', '/v1/events/batch', { events });
    const status = answer === 'throttled' ? 'throttled (429)' : String(answer.statusCode);
    if (status !== '202' && status !== '200') {
      refused[status] = (refused[status] ?? 0) + events.length;
      return false;
    }
    publishedThisSecond += events.length;
    for (const e of events) accepted[Number(e.id.slice(4))] = 1;
    return true;
  };
  const eventFor = (n: number) => {
    const index = scenario.target(n, () => time.random());
    return { id: `evt_${n}`, type: 'order.created', tenantId: `t${index}`, payload: { n, pad: PAD } };
  };

  if (scenario.replayDeadLetters) {
    // Dead letters first, each failing once (400) and dead-lettered: paced, and every refused call tried again.
    const calls: Promise<void>[] = [];
    const callsPerSecond = DEAD_LETTER_SETUP_PER_SECOND / 100;
    for (let n = 0, call = 0; n < scenario.replayDeadLetters; n += 100, call++) {
      const batch = Array.from({ length: Math.min(100, scenario.replayDeadLetters - n) }, (_, i) => eventFor(n + i));
      calls.push(
        (async () => {
          while (!(await publish(batch))) await time.sleep(1000);
        })(),
      );
      if ((call + 1) % callsPerSecond === 0) await time.runWhile(time.sleep(1000));
    }
    await time.runWhile(Promise.all(calls));
    // Refused tries are the setup's, not the measured run's.
    for (const k of Object.keys(refused)) delete refused[k];
    seq = scenario.replayDeadLetters;
    await time.runWhile(waitUntilDrained(model, time));
    setupFailing = false;
    receipts.fill(0);
  }

  measuring = true;
  measuredFrom = time.now();
  const countersBefore = requestCounters(model);
  // The POSTs of the measured run only: a replay's setup attempted every dead letter once before it.
  const firstMeasuredPost = model.endpoints.startTimes.length;
  const samples: SecondSample[] = [];
  const sweeper = { runs: 0, longestRunSeconds: 0, requeued: 0, expired: 0, lagPeakSeconds: 0 };
  // A scheduled run that fails is counted and its first error told, not swallowed: a schedule
  // that never completes (a sweeper past its timeout) is a finding, not a quiet run.
  const failedRuns: Record<string, { count: number; first: string }> = {};
  const schedule = (name: string, everyMs: number, job: () => Promise<void>) => {
    const timer = setInterval(
      () =>
        void job().catch((error: unknown) => {
          const failed = (failedRuns[name] ??= { count: 0, first: String((error as Error)?.message ?? error) });
          failed.count++;
        }),
      everyMs,
    );
    return () => clearInterval(timer);
  };
  const stops = [
    schedule('sweeper', 60_000, async () => {
      const started = time.now();
      const outcome = await model.pools.sweeper.invoke(model.scheduledEvent());
      sweeper.runs++;
      sweeper.longestRunSeconds = Math.max(sweeper.longestRunSeconds, (time.now() - started) / 1000);
      sweeper.lagPeakSeconds = Math.max(sweeper.lagPeakSeconds, sweeperLagSeconds(model, time.now()));
      if (outcome.kind === 'done') {
        const report = outcome.value as { requeued?: number; expired?: number };
        sweeper.requeued += report.requeued ?? 0;
        sweeper.expired += report.expired ?? 0;
      }
    }),
    schedule('replay', 60_000, async () => void (await model.pools.replay.invoke(model.scheduledEvent()))),
    schedule('notifier', 300_000, async () => void (await model.pools.notifier.invoke(model.scheduledEvent()))),
  ];

  let replay: { replayed: number; finishedAfterSeconds?: number } | undefined;
  if (scenario.replayDeadLetters) {
    replay = { replayed: 0 };
    void api('POST', '/v1/replays', {
      subscriptionId: subscriptionIds[0],
      states: ['failed'],
      createdFrom: new Date(START_MS - 3_600_000).toISOString(),
      createdTo: new Date(time.now()).toISOString(),
      ...(scenario.replayWindowSeconds !== undefined ? { windowSeconds: scenario.replayWindowSeconds } : {}),
    });
  }

  // Publishing: every 10 ms, the calls due by then, each carrying eventsPerCall events.
  const publishEnd = measuredFrom + scenario.publishSeconds * 1000;
  const perTick = scenario.ratePerSecond / 100 / scenario.eventsPerCall;
  let owed = 0;
  const publisher =
    scenario.ratePerSecond > 0
      ? setInterval(() => {
          if (time.now() >= publishEnd) return;
          owed += perTick;
          while (owed >= 1) {
            owed -= 1;
            const events = Array.from({ length: scenario.eventsPerCall }, () => eventFor(seq++));
            void publish(events);
          }
        }, 10)
      : undefined;

  const end = publishEnd + scenario.drainSeconds * 1000;
  await time.runUntil(end, (nowMs) => {
    const depth = model.queues.delivery.depth();
    // Sampled each second, as the delivery queue's is; the queue keeps its peak (stats().oldestAgeMsPeak).
    model.queues.slowDelivery.oldestAgeMs();
    samples.push({
      second: Math.round((nowMs - measuredFrom) / 1000),
      delivered: deliveredThisSecond,
      published: publishedThisSecond,
      queueAgeSeconds: model.queues.delivery.oldestAgeMs() / 1000,
      inFlight: depth.inFlight,
      senderConcurrency: model.pools.sender.concurrency,
    });
    deliveredThisSecond = 0;
    publishedThisSecond = 0;
    const second = samples.at(-1)!.second;
    // A full-size run takes hours: a line a simulated minute says how far it is, and at what wall time and heap.
    if (end - measuredFrom > PROGRESS_AFTER_MS && second > 0 && second % 60 === 0)
      console.error(
        `[scale-model] ${scenario.key}: ${second} of ${Math.round((end - measuredFrom) / 1000)} simulated s, ${delivered} delivered, wall ${((performance.now() - wallStart) / 1000).toFixed(0)} s, heap ${(process.memoryUsage().heapUsed / 2 ** 30).toFixed(1)} GB`,
      );
    if (replay && replay.finishedAfterSeconds === undefined && delivered >= (scenario.replayDeadLetters ?? 0))
      replay.finishedAfterSeconds = (nowMs - measuredFrom) / 1000;
  });
  if (publisher) clearInterval(publisher);
  for (const stop of stops) stop();
  for (const [name, failed] of Object.entries(failedRuns))
    console.error(
      `[scale-model] ${scenario.key}: ${failed.count} scheduled ${name} runs failed; the first: ${failed.first}`,
    );
  model.eventSources.stop();
  if (replay) replay.replayed = delivered;

  let acceptedCount = 0;
  let received = 0;
  for (let i = 0; i < seq; i++) {
    acceptedCount += accepted[i]!;
    if (accepted[i] && receipts[i]! > 0) received++;
  }
  const undeliveredBy = audit(model, receipts, accepted, seq);
  const publishing = samples.filter((s) => s.second <= scenario.publishSeconds || scenario.publishSeconds === 0);
  const queue = model.queues.delivery.stats();
  const requests = requestFigures(
    countersBefore,
    requestCounters(model),
    delivered,
    acceptedCount - (scenario.replayDeadLetters ?? 0),
  );
  return {
    scenario,
    simulatedSeconds: (time.now() - measuredFrom) / 1000,
    wallSeconds: (performance.now() - wallStart) / 1000,
    published: acceptedCount,
    publishRefused: refused,
    delivered,
    duplicates,
    undelivered: acceptedCount - received,
    undeliveredBy,
    latencyP50Ms: latency.percentile(0.5),
    latencyP99Ms: latency.percentile(0.99),
    ...(hanging.size > 0
      ? {
          healthyP50Ms: healthyLatency.percentile(0.5),
          healthyP99Ms: healthyLatency.percentile(0.99),
          ...(settledHealthyLatency.total > 0
            ? {
                settledHealthyP50Ms: settledHealthyLatency.percentile(0.5),
                settledHealthyP99Ms: settledHealthyLatency.percentile(0.99),
              }
            : {}),
        }
      : {}),
    peakDeliveriesPerSecond: Math.max(0, ...samples.map((s) => s.delivered)),
    ...(scenario.rateLimitPerSecond
      ? {
          rateLimit: rateLimitFigures(scenario.rateLimitPerSecond, model.endpoints.startTimes.slice(firstMeasuredPost)),
        }
      : {}),
    meanDeliveriesPerSecond: publishing.length
      ? publishing.reduce((a, s) => a + s.delivered, 0) / publishing.length
      : 0,
    queueAgePeakSeconds: Math.max(0, ...samples.map((s) => s.queueAgeSeconds)),
    slowLaneAgePeakSeconds: model.queues.slowDelivery.stats().oldestAgeMsPeak / 1000,
    inFlightPeak: queue.inFlightPeak,
    overLimitRefusals: queue.overLimitRefusals,
    senderPeakConcurrency: model.pools.sender.stats().peakConcurrency,
    senderCaps: model.senderCaps,
    lambda: Object.fromEntries(
      Object.entries(model.pools).map(([fn, pool]) => {
        const s = pool.stats();
        return [
          fn,
          { invocations: s.invocations, throttles: s.throttles, peak: s.peakConcurrency, coldStarts: s.coldStarts },
        ];
      }),
    ),
    dynamodb: model.dynamo.report(),
    sweeper,
    ...(replay ? { replay } : {}),
    handlerErrors: Object.fromEntries(model.logger.errors),
    ...(requests ? { requests } : {}),
    samples,
  };
}

/** About 1 KB of payload, as the cost bench's events carry. */
const PAD = 'x'.repeat(900);

async function createSubscriptions(
  scenario: Scenario,
  api: (method: string, path: string, body?: unknown) => Promise<APIGatewayProxyResult | 'throttled'>,
): Promise<string[]> {
  const ids: string[] = new Array(scenario.subscriptions);
  let next = 0;
  const worker = async () => {
    while (next < scenario.subscriptions) {
      const i = next++;
      for (;;) {
        const answer = await api('POST', '/v1/subscriptions', {
          url: `https://${hostOf(i)}/hooks`,
          tenantId: `t${i}`,
          ...(scenario.retryPolicy ? { retryPolicy: scenario.retryPolicy } : {}),
          ...(scenario.rateLimitPerSecond ? { rateLimitPerSecond: scenario.rateLimitPerSecond } : {}),
        });
        if (answer !== 'throttled' && answer.statusCode === 201) {
          ids[i] = (JSON.parse(answer.body) as { id: string }).id;
          break;
        }
        if (answer !== 'throttled' && answer.statusCode < 500 && answer.statusCode !== 429)
          throw new Error(`creating subscription ${i}: ${answer.statusCode} ${answer.body}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SETUP_CONCURRENCY, scenario.subscriptions) }, worker));
  return ids;
}

/**
 * How far the sweeper's check of publish manifests trails the clock: the age of the oldest
 * manifest no run has checked yet (past its shard's watermark, `checkedBefore`, and not among the
 * keys remembered beyond it), or 0 when every one is checked. A manifest is checked once its
 * grace has passed, by the next run a minute apart, so about grace + 60 s is the design; more is a
 * sweeper falling behind.
 */
function sweeperLagSeconds(model: Model, nowMs: number): number {
  const table = localResourceName(TABLES.ingestManifests);
  const marks = new Map([...model.dynamo.items(table, 'checked')].map((w) => [String(w.key), w]));
  let oldest = nowMs;
  for (let i = 0; i < INGEST_MANIFEST_SHARDS; i++) {
    const mark = marks.get(`m${i}`);
    const before = String(mark?.checkedBefore ?? '');
    const checked = new Set((mark?.checked as string[] | undefined) ?? []);
    for (const m of model.dynamo.items(table, `m${i}`)) {
      const key = String(m.key);
      if (key > before && !checked.has(key)) oldest = Math.min(oldest, Date.parse(key.slice(0, 24)));
    }
  }
  return Math.max(0, nowMs - oldest) / 1000;
}

/**
 * What became of each accepted event no receiver got, read from the deliveries table's own
 * storage at the end: dead-lettered (failed, expired), still on its way (pending, in flight, or
 * not written yet while the queue holds messages), or lost.
 */
function audit(
  model: Model,
  receipts: Uint8Array,
  accepted: Uint8Array,
  published: number,
): ScenarioResult['undeliveredBy'] {
  const stateOf = new Map<number, string>();
  for (const item of model.dynamo.items(localResourceName(TABLES.deliveries))) {
    const seq = Number(String(item.eventId).slice(4));
    if (seq >= 0 && seq < published && receipts[seq] === 0) stateOf.set(seq, String(item.state));
  }
  const by = { deadLettered: 0, onItsWay: 0, lost: 0 };
  const queued = model.queues.delivery.depth().stored + model.queues.slowDelivery.depth().stored > 0;
  for (let seq = 0; seq < published; seq++) {
    if (!accepted[seq] || receipts[seq]! > 0) continue;
    const state = stateOf.get(seq);
    if (state === 'failed' || state === 'expired') by.deadLettered++;
    else if (state === 'pending' || state === 'in_flight') by.onItsWay++;
    // No row yet: the sender writes a batch publish's rows at their first attempt, so while the
    // queue still holds messages the event is on its way; with the queue empty it is lost.
    else if (state === undefined && queued) by.onItsWay++;
    else by.lost++;
  }
  return by;
}

/** Resolves once the delivery queue holds nothing (the setup's dead letters all written). */
async function waitUntilDrained(model: Model, time: VirtualTime): Promise<void> {
  while (model.queues.delivery.depth().stored + model.queues.slowDelivery.depth().stored > 0) await time.sleep(1000);
}

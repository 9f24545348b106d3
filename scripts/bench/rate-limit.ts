import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { maxInAnySecond, mostInAnySecond } from '#domain/send-rate.ts';
import { table } from './benchmarks-file.ts';
import { BATCH_SIZE } from './plan.ts';
import { startBenchStack, type BenchStack } from './bench-stack.ts';
import { fmt } from './stats.ts';
import { METRICS } from '#config/topology.ts';

/** Calls by `Service Operation target` (a table or queue name). */
export type CallCounts = Readonly<Record<string, number>>;

/**
 * How the burst reached the sender: published by POST /v1/events/batch, 100 a request, or by
 * POST /v1/events, one a request; or replayed in bulk (POST /v1/replays, all due at once) after
 * every event had dead-lettered.
 */
export type PublishedAs = 'batch' | 'single' | 'replay';

/** The share of the limit a backlog must drain at (issue: ≥ 90 % of `rateLimitPerSecond`). */
export const DRAIN_TARGET = 0.9;

export interface RateLimitRun {
  readonly events: number;
  readonly limit: number;
  readonly publishedAs: PublishedAs;
  /**
   * The most attempts that started in any 1 s window (half-open, anywhere), from the attempt log
   * of each delivery: what the bound is on.
   */
  readonly maxStartsInOneSecond: number;
  /** The most deliveries the receiver got in any 1 s window: the starts plus the loopback's and the bench process's jitter. */
  readonly maxInOneSecond: number;
  /** From the first publish request to the last delivery's arrival. */
  readonly drainSeconds: number;
  /** From the first delivery's arrival to the last. */
  readonly arrivalSpanSeconds: number;
  /** Requests the receiver got (more than `events` would be a delivery sent twice). */
  readonly requests: number;
  /** Every AWS call the handlers made, for the limited burst and (when measured) for the same burst without a limit. */
  readonly limited: CallCounts;
  readonly unlimited?: CallCounts;
}

/** How long the replay waits after setting the limit: past the sender's 5 s subscription cache (bench-stack.ts). */
const SUBSCRIPTION_CACHE_WAIT_MS = 6000;

/** Single publishes, 8 requests at a time: about what one producer's HTTP client sends. */
const SINGLE_PUBLISH_CONCURRENCY = 8;

/** Counts the handlers' AWS calls on the runtime's own clients: just the count, nothing read back, so the timing is left alone. */
function countCalls(dynamodb: DynamoDBClient, sqs: SQSClient): { counts: Record<string, number> } {
  const meter = { counts: {} as Record<string, number> };
  const add = (service: string) => (next: any, context: any) => async (args: any) => {
    const input = args.input as Record<string, any>;
    const target =
      service === 'SQS'
        ? String(input.QueueUrl ?? '')
            .split('/')
            .pop()
        : String(input.TableName ?? Object.keys(input.RequestItems ?? {})[0] ?? '');
    const key = `${service} ${String(context.commandName ?? '').replace(/Command$/, '')} ${target}`;
    const output = await next(args);
    // Messages, not receives: an idle long poll says nothing about the deliveries.
    if (key.startsWith('SQS ReceiveMessage'))
      meter.counts[`${key} (messages)`] =
        (meter.counts[`${key} (messages)`] ?? 0) + ((output.output as { Messages?: unknown[] }).Messages?.length ?? 0);
    else meter.counts[key] = (meter.counts[key] ?? 0) + 1;
    return output;
  };
  dynamodb.middlewareStack.add(add('DynamoDB'), { step: 'initialize', name: 'hooklineRateBenchDynamoDB' });
  sqs.middlewareStack.add(add('SQS'), { step: 'initialize', name: 'hooklineRateBenchSqs' });
  return meter;
}

/** One burst of `events` (published as `publishedAs`, as fast as the API takes them) to one subscription, with `limit` or none. */
async function burst(events: number, limit: number | undefined, timeoutMs: number, publishedAs: PublishedAs) {
  // A replay's burst is made of dead letters first: the endpoint refuses every event (400), then takes them.
  let refusing = publishedAs === 'replay';
  const stack = await startBenchStack({ answer: () => ({ status: refusing ? 400 : 200 }) });
  try {
    // Dead letters are made without the limit (at its pace they would take as long as the replay); it is set before the replay.
    const res = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/s0`,
      eventTypes: ['bench.rate'],
      ...(limit && !refusing ? { rateLimitPerSecond: limit } : {}),
    });
    if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
    const from = new Date(Date.now() - 60_000).toISOString();
    if (refusing) {
      await stack.publishBatch(events, BATCH_SIZE, 'bench.rate');
      await stack.waitCount(METRICS.deadLettered, events, timeoutMs);
      const limited = await stack.api.patch(`/v1/subscriptions/${res.body.id}`, { rateLimitPerSecond: limit ?? null });
      if (limited.status !== 200)
        throw new Error(`setting the limit failed: ${limited.status} ${JSON.stringify(limited.body)}`);
      refusing = false;
      stack.receiver.reset();
      // The sender serves the subscription from its 5 s cache, as on Lambda: the new limit reaches it within that.
      await new Promise((r) => setTimeout(r, SUBSCRIPTION_CACHE_WAIT_MS));
    }
    const meter = countCalls(stack.runtime.clients.dynamodb, stack.runtime.clients.sqs);
    const started = performance.timeOrigin + performance.now();
    if (publishedAs === 'batch') await stack.publishBatch(events, BATCH_SIZE, 'bench.rate');
    else if (publishedAs === 'single') await stack.publishHttp(events, SINGLE_PUBLISH_CONCURRENCY, 'bench.rate');
    else {
      const replay = await stack.api.post('/v1/replays', {
        states: ['failed'],
        createdFrom: from,
        createdTo: new Date(Date.now() + 1000).toISOString(),
        windowSeconds: 0,
      });
      if (replay.status >= 300) throw new Error(`replay failed: ${replay.status} ${JSON.stringify(replay.body)}`);
    }
    await stack.waitDelivered(events, timeoutMs);
    const arrivals = [...stack.receiver.seen.values()].flat();
    const calls = { ...meter.counts };
    return {
      arrivals,
      starts: await attemptStarts(stack, res.body.id),
      started,
      requests: stack.receiver.requests,
      calls,
    };
  } finally {
    await stack.stop();
  }
}

/**
 * When each delivery's last attempt (the one the limit paced) started, by its attempt log
 * (`GET /v1/deliveries/{id}`): the sender's own clock, without the receiver's jitter.
 */
async function attemptStarts(stack: BenchStack, subscriptionId: string): Promise<number[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await stack.api.get(
      `/v1/deliveries?subscriptionId=${subscriptionId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    ids.push(...page.body.items.map((d: { id: string }) => d.id));
    cursor = page.body.nextCursor ?? undefined;
  } while (cursor);
  const starts: number[] = [];
  for (let i = 0; i < ids.length; i += DETAIL_READS_AT_ONCE) {
    const details = await Promise.all(
      ids.slice(i, i + DETAIL_READS_AT_ONCE).map((id) => stack.api.get(`/v1/deliveries/${id}`)),
    );
    for (const { body } of details) {
      const log = body.attemptLog as { seq: number; startedAt: string }[];
      starts.push(Date.parse(log.reduce((a, b) => (b.seq > a.seq ? b : a)).startedAt));
    }
  }
  return starts;
}

/** Delivery details read side by side when collecting attempt starts. */
const DETAIL_READS_AT_ONCE = 16;

/**
 * A burst to a subscription limited to `limit`/s, measured at the sender (attempt starts) and at the receiver: the most in any 1 s
 * window, the drain time, and every AWS call beside the same burst to a subscription without one.
 */
export async function measureRateLimit(
  events: number,
  limit: number,
  publishedAs: PublishedAs,
  { withUnlimited }: { readonly withUnlimited: boolean },
): Promise<RateLimitRun> {
  // The unlimited burst is there only for the call comparison, which the report shows for one run.
  const unlimited = withUnlimited ? await burst(events, undefined, 120_000, publishedAs) : undefined;
  // At the limit the drain takes events / limit seconds; four times that, and two minutes for the publish, before giving up.
  const limited = await burst(events, limit, 120_000 + (4 * events * 1000) / limit, publishedAs);
  return {
    events,
    limit,
    publishedAs,
    maxStartsInOneSecond: mostInAnySecond(limited.starts),
    maxInOneSecond: mostInAnySecond(limited.arrivals),
    drainSeconds: (Math.max(...limited.arrivals) - limited.started) / 1000,
    arrivalSpanSeconds: (Math.max(...limited.arrivals) - Math.min(...limited.arrivals)) / 1000,
    requests: limited.requests,
    limited: limited.calls,
    ...(unlimited ? { unlimited: unlimited.calls } : {}),
  };
}

/** The drain rate as a share of the limit: deliveries over the span from the first arrival to the last. */
export function drainShare(run: RateLimitRun): number {
  return run.events / run.arrivalSpanSeconds / run.limit;
}

const PUBLISHED_AS: Readonly<Record<PublishedAs, string>> = {
  batch: `${BATCH_SIZE} a request (POST /v1/events/batch)`,
  single: `one a request, ${SINGLE_PUBLISH_CONCURRENCY} at a time (POST /v1/events)`,
  replay:
    'as dead letters (a 400 each), then replayed in bulk, all due at once (POST /v1/replays, windowSeconds 0), the limit set 6 s before',
};

/** The bursts' figures, one row each (batch first: the trend column reads the first row), and the calls of the first. */
export function renderRateLimit(runs: readonly RateLimitRun[]): string {
  const first = runs[0]!;
  const unlimited = first.unlimited ?? {};
  const bound = maxInAnySecond(first.limit);
  const per = (n: number | undefined) => (n ?? 0) / first.events;
  const keys = [...new Set([...Object.keys(first.limited), ...Object.keys(unlimited)])].sort();
  const rows = keys
    .map((k) => [k, per(first.limited[k]), per(unlimited[k])] as const)
    .filter(([, a, b]) => Math.abs(a - b) >= 0.005)
    .map(([k, a, b]) => [`\`${k}\``, fmt(a, 2), fmt(b, 2), `${a >= b ? '+' : ''}${fmt(a - b, 2)}`]);
  return [
    '### Rate limit',
    '',
    `A burst of ${first.events} events to one subscription with \`rateLimitPerSecond: ${first.limit}\`, on the local runtime (sender concurrency as \`npm start\`), once published in batches, once by single publishes and once replayed in bulk as dead letters; the same burst without a limit, on a fresh runtime, for the calls. The bound is on when attempts start, read from each delivery's attempt log; the receiver sees those starts plus the loopback's and this one process's jitter (the receiver, the runtime and the emulators share it), shown beside for what a receiver may see.`,
    '',
    table(
      [
        'most attempts started in any 1 s window',
        `bound L + ceil(L/10)`,
        'most received in any 1 s window',
        'drain (first publish → last delivery)',
        'first → last delivery',
        `drain rate ÷ L (target ≥ ${fmt(DRAIN_TARGET * 100, 0)} %)`,
        `at ${first.limit}/s it would take`,
        'requests received',
        'published',
      ],
      runs.map((run) => [
        run.maxStartsInOneSecond,
        `${bound} (${run.maxStartsInOneSecond <= bound ? 'met' : '**not met**'})`,
        run.maxInOneSecond,
        `${fmt(run.drainSeconds, 1)} s`,
        `${fmt(run.arrivalSpanSeconds, 1)} s (${fmt(run.events / run.arrivalSpanSeconds, 1)}/s)`,
        `${fmt(drainShare(run) * 100, 0)} % (${drainShare(run) >= DRAIN_TARGET ? 'met' : '**not met**'})`,
        `${fmt(run.events / run.limit, 0)} s`,
        run.requests,
        PUBLISHED_AS[run.publishedAs],
      ]),
    ),
    '',
    `AWS calls per delivery where the two runs differ, published ${PUBLISHED_AS[first.publishedAs]} (the rest is the same per delivery):`,
    '',
    table(['call', 'limited', 'unlimited', 'extra per limited delivery'], rows),
    '',
    "The limited delivery pays the rate-limits table's counts and turns and one message sent per wait (its wait's whole seconds, carrying its turn); its outcome is the same single write. Back up to a second early, it holds its sender batch for the rest (0.5 s on average), so it is counted in the sub-window its turn names.",
  ].join('\n');
}

import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { maxInAnySecond, mostInAnySecond } from '#domain/send-rate.ts';
import { table } from './benchmarks-file.ts';
import { BATCH_SIZE } from './plan.ts';
import { startBenchStack } from './bench-stack.ts';
import { fmt } from './stats.ts';

/** Calls by `Service Operation target` (a table or queue name). */
export type CallCounts = Readonly<Record<string, number>>;

export interface RateLimitRun {
  readonly events: number;
  readonly limit: number;
  /** The most deliveries the receiver got in any 1 s window (half-open, anywhere). */
  readonly maxInOneSecond: number;
  /** From the first publish request to the last delivery's arrival. */
  readonly drainSeconds: number;
  /** From the first delivery's arrival to the last. */
  readonly arrivalSpanSeconds: number;
  /** Requests the receiver got (more than `events` would be a delivery sent twice). */
  readonly requests: number;
  /** Every AWS call the handlers made, for the limited burst and for the same burst without a limit. */
  readonly limited: CallCounts;
  readonly unlimited: CallCounts;
}

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

/** One burst of `events` (published 100 a request, as fast as the API takes them) to one subscription, with `limit` or none. */
async function burst(events: number, limit: number | undefined, timeoutMs: number) {
  const stack = await startBenchStack();
  try {
    const res = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/s0`,
      eventTypes: ['bench.rate'],
      ...(limit ? { rateLimitPerSecond: limit } : {}),
    });
    if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
    const meter = countCalls(stack.runtime.clients.dynamodb, stack.runtime.clients.sqs);
    const started = performance.timeOrigin + performance.now();
    await stack.publishBatch(events, BATCH_SIZE, 'bench.rate');
    await stack.waitDelivered(events, timeoutMs);
    const arrivals = [...stack.receiver.seen.values()].flat();
    return { arrivals, started, requests: stack.receiver.requests, calls: { ...meter.counts } };
  } finally {
    await stack.stop();
  }
}

/**
 * A burst to a subscription limited to `limit`/s, measured at the receiver: the most in any 1 s
 * window, the drain time, and every AWS call beside the same burst to a subscription without one.
 */
export async function measureRateLimit(events: number, limit: number): Promise<RateLimitRun> {
  const unlimited = await burst(events, undefined, 120_000);
  // At the limit the drain takes events / limit seconds; four times that, and two minutes for the publish, before giving up.
  const limited = await burst(events, limit, 120_000 + (4 * events * 1000) / limit);
  return {
    events,
    limit,
    maxInOneSecond: mostInAnySecond(limited.arrivals),
    drainSeconds: (Math.max(...limited.arrivals) - limited.started) / 1000,
    arrivalSpanSeconds: (Math.max(...limited.arrivals) - Math.min(...limited.arrivals)) / 1000,
    requests: limited.requests,
    limited: limited.calls,
    unlimited: unlimited.calls,
  };
}

export function renderRateLimit(run: RateLimitRun): string {
  const bound = maxInAnySecond(run.limit);
  const per = (n: number | undefined) => (n ?? 0) / run.events;
  const keys = [...new Set([...Object.keys(run.limited), ...Object.keys(run.unlimited)])].sort();
  const rows = keys
    .map((k) => [k, per(run.limited[k]), per(run.unlimited[k])] as const)
    .filter(([, a, b]) => Math.abs(a - b) >= 0.005)
    .map(([k, a, b]) => [`\`${k}\``, fmt(a, 2), fmt(b, 2), `${a >= b ? '+' : ''}${fmt(a - b, 2)}`]);
  return [
    '### Rate limit',
    '',
    `A burst of ${run.events} events published ${BATCH_SIZE} a request to one subscription with \`rateLimitPerSecond: ${run.limit}\`, on the local runtime (sender concurrency as \`npm start\`), measured at the receiver; the same burst without a limit, on a fresh runtime, for the calls.`,
    '',
    table(
      [
        'most in any 1 s window',
        `bound L + ceil(L/10)`,
        'drain (first publish → last delivery)',
        'first → last delivery',
        `at ${run.limit}/s it would take`,
        'requests received',
      ],
      [
        [
          run.maxInOneSecond,
          `${bound} (${run.maxInOneSecond <= bound ? 'met' : '**not met**'})`,
          `${fmt(run.drainSeconds, 1)} s`,
          `${fmt(run.arrivalSpanSeconds, 1)} s (${fmt(run.events / run.arrivalSpanSeconds, 1)}/s)`,
          `${fmt(run.events / run.limit, 0)} s`,
          run.requests,
        ],
      ],
    ),
    '',
    'AWS calls per delivery where the two runs differ (the rest is the same per delivery):',
    '',
    table(['call', 'limited', 'unlimited', 'extra per limited delivery'], rows),
    '',
    "The limited delivery pays the rate-limits table's counts and turns, one visibility change per wait, and, once it has waited, a read of its row (its message is received again); its outcome is the same single write.",
  ].join('\n');
}

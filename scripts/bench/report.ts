import type { CallFloorRun } from './call-floor.ts';
import type { ColdStart } from './cold-start.ts';
import type { ProfileShare } from './cpu-profile.ts';
import { table } from './benchmarks-file.ts';
import type { LatencyRun, ThroughputRun } from './end-to-end.ts';
import type { OverheadRun } from './overhead.ts';
import type { RetryTimingRun } from './retry-timing.ts';
import { fmt, median, percentile } from './stats.ts';

const mark = (ok: boolean) => (ok ? 'met' : '**not met**');

/** The speed and size targets (issue "Lean write path" for throughput, latency and overhead); the cost targets are in targets.ts. */
export const TARGETS = { overheadRatio: 0.8, throughput: 400, p50: 25, p99: 150, senderKb: 400, initMs: 150 };

export function renderOverhead(runs: readonly OverheadRun[]): string {
  const raw = median(runs.map((r) => r.rawPerSecond));
  const memory = median(runs.map((r) => r.memoryPerSecond));
  const emulator = median(runs.map((r) => r.emulatorPerSecond));
  const signed = median(runs.map((r) => r.signedRawPerSecond));
  const ratioSigned = median(runs.map((r) => r.signedRawPerSecond / r.rawPerSecond));
  const memoryOverSigned = median(runs.map((r) => r.memoryPerSecond / r.signedRawPerSecond));
  const ratioMemory = median(runs.map((r) => r.memoryPerSecond / r.rawPerSecond));
  const ratioEmulator = median(runs.map((r) => r.emulatorPerSecond / r.rawPerSecond));
  return [
    '### Engine overhead',
    '',
    `The sender's first attempt (\`processDelivery\` on a fresh message: sign, POST, classify, one write) against a loopback receiver that answers 200 at once, next to raw \`node:http\` keep-alive POSTs of the same 1 KB body to the same receiver in the same run; ${runs[0]!.count} deliveries per figure, ${runs[0]!.concurrency} at a time, median of ${runs.length} run(s).`,
    '',
    table(
      ['what is measured', 'per second', 'ratio to raw POSTs', `target ≥ ${TARGETS.overheadRatio}`],
      [
        ['raw node:http keep-alive POSTs', fmt(raw, 0), '1', ''],
        [
          "signed raw POSTs: the same, with the engine's headers (Standard Webhooks id, timestamp, signature; content type, user agent), signed per request by `signatureHeaders`; no engine",
          fmt(signed, 0),
          fmt(ratioSigned, 2),
          'the floor for any sender of the protocol',
        ],
        [
          "sender path, in-memory stores (the engine's own CPU cost)",
          fmt(memory, 0),
          fmt(ratioMemory, 2),
          mark(ratioMemory >= TARGETS.overheadRatio),
        ],
        [
          'sender path, real DynamoDB adapters against dynalite',
          fmt(emulator, 0),
          fmt(ratioEmulator, 3),
          mark(ratioEmulator >= TARGETS.overheadRatio),
        ],
      ],
    ),
    '',
    `The signed raw POSTs are what the protocol itself costs on top of a raw POST (an HMAC-SHA256 of the body, three more headers for the receiver to parse): ` +
      `they take the ratio to ${fmt(ratioSigned, 2)} before any engine work, so the engine's own share is the in-memory path against them, ${fmt(memoryOverSigned, 2)} ` +
      `(the message, the cached subscription and secrets, the classification, the one write, the attempt report). ` +
      `A ratio of ${TARGETS.overheadRatio} to raw POSTs would leave the engine ${fmt((Math.max(0, 1 / TARGETS.overheadRatio - 1 / ratioSigned) * 1e6) / raw, 1)} µs a delivery beyond signing at this machine's raw rate.\n\n` +
      `With the emulator each first attempt makes 2 DynamoDB round trips (the subscription, read uncached here, and the one outcome write) to dynalite on the same two cores: that, not the engine, bounds the second figure. ` +
      'The in-memory figure is timed without the profiler, after a warm-up as long as the run on both sides. ' +
      `Where a separate, profiled in-memory run's main thread went (by file; Node's own code charged to its caller): ` +
      topShares(runs[0]!.memoryProfile, 8) +
      '.',
  ].join('\n');
}

function topShares(shares: readonly ProfileShare[], n: number): string {
  return shares
    .slice(0, n)
    .map((x) => `${x.name} ${(x.share * 100).toFixed(0)} %`)
    .join(', ');
}

const GROUPS: readonly [string, RegExp][] = [
  [
    'DynamoDB emulator (dynalite, LevelDB bindings)',
    /^(dynalite|classic-level|abstract-level|level|lazy|async|once|big\.js|buffer-crc32)/,
  ],
  [
    'SQS emulator (fauxqs, fastify, SQLite)',
    /^(fauxqs|fastify|@fastify|better-sqlite3|light-my-request|avvio|find-my-way|pino)/,
  ],
  ['AWS SDK clients (serialise, sign, HTTP)', /^(@smithy|@aws-sdk|@aws-crypto|fast-xml-parser|tslib)/],
  ['Hookline engine and handlers (lambdas/)', /^lambdas\//],
  ['Powertools and middy', /^(@aws-lambda-powertools|@middy)/],
  ['local runtime (local/: gateway, poller)', /^local\//],
  ['load generator and receiver (scripts/, test/)', /^(scripts|test)\//],
  ['garbage collector', /^garbage collector$/],
  ['idle (waiting on I/O)', /^idle$/],
];

export function renderEndToEnd(
  fo1: readonly ThroughputRun[],
  fo10: readonly ThroughputRun[],
  wide: readonly ThroughputRun[],
  floor: readonly CallFloorRun[],
  latency: readonly LatencyRun[][],
  profile: readonly ProfileShare[],
): string {
  const t1 = median(fo1.map((r) => r.perSecond));
  const tFloor = median(floor.map((r) => r.perSecond));
  const t10 = median(fo10.map((r) => r.perSecond));
  const tWide = median(wide.map((r) => r.perSecond));
  const grouped = new Map<string, number>();
  for (const s of profile) {
    const group = GROUPS.find(([, re]) => re.test(s.name))?.[0] ?? 'Node itself and other code';
    grouped.set(group, (grouped.get(group) ?? 0) + s.share);
  }
  const latencyRows = latency.map((runs) => {
    const p = (f: (r: LatencyRun) => number) => median(runs.map(f));
    const ok = p((r) => r.p50) <= TARGETS.p50 && p((r) => r.p99) <= TARGETS.p99;
    return [
      `${runs[0]!.offeredPerSecond}/s for ${runs[0]!.events} events`,
      fmt(
        p((r) => r.acceptedPerSecond),
        0,
      ),
      fmt(
        p((r) => r.p50),
        0,
      ),
      fmt(
        p((r) => r.p95),
        0,
      ),
      fmt(
        p((r) => r.p99),
        0,
      ),
      fmt(
        p((r) => r.max),
        0,
      ),
      mark(ok),
    ];
  });
  return [
    '### Local runtime end to end',
    '',
    `The whole local runtime in one process (\`startRuntime\`: dynalite, fauxqs, the gateway, the pollers with 4 concurrent sender batches, the real handlers), a loopback receiver answering 200, events published through the HTTP API. Sustained rate: events published as fast as 32 concurrent clients allow, timed from the first publish until the runtime has recorded the last delivery as delivered; median of ${fo1.length} run(s).`,
    '',
    table(
      ['figure', 'measured', 'target'],
      [
        [
          `sustained deliveries per second, fan-out 1 (${fo1[0]!.deliveries} deliveries)`,
          fmt(t1, 0),
          `≥ ${TARGETS.throughput}: ${mark(t1 >= TARGETS.throughput)}`,
        ],
        [
          `sustained deliveries per second, fan-out 10 (${fo10[0]!.deliveries} deliveries)`,
          fmt(t10, 0),
          `≥ ${TARGETS.throughput}: ${mark(t10 >= TARGETS.throughput)}`,
        ],
        [
          `fan-out 1 with ${wide[0]!.senderConcurrency} concurrent sender batches (the cloud mapping's maximum) instead of 4`,
          fmt(tWide, 0),
          `≥ ${TARGETS.throughput}: ${mark(tWide >= TARGETS.throughput)}`,
        ],
        [
          `the ceiling: fan-out 1's AWS calls alone, no HTTP, no Hookline code (${floor[0]!.deliveries} deliveries; \`call-floor.ts\`)`,
          fmt(tFloor, 0),
          `fan-out 1 runs at ${fmt(t1 / tFloor, 2)} of it`,
        ],
      ],
    ),
    '',
    `The ceiling makes only the calls a fan-out-1 delivery published over HTTP makes (a conditional PutItem of the event, a PutItem of its one-event manifest, a SendMessageBatch, then per received batch of ten a PutItem of each row and a DeleteMessageBatch), through the same SDK clients against the same emulators: the local runtime cannot go faster than that on this machine. ` +
      (tFloor < TARGETS.throughput
        ? `At ${fmt(tFloor, 0)} a second it is below the ${TARGETS.throughput} the target asks for, so no change to Hookline's code can meet the target here: only a faster machine or faster emulators can.`
        : `At ${fmt(tFloor, 0)} a second it leaves room above the ${TARGETS.throughput} the target asks for: the gap is the HTTP publish, the webhook POST and Hookline's own work.`),
    '',
    'Publish-to-receiver latency (publish request sent → the receiver has the webhook), open-loop publishing at a fixed offered rate, fan-out 1, each figure the median over runs:',
    '',
    table(
      [
        'offered rate',
        'publishes accepted per second',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'max ms',
        `target p50 ≤ ${TARGETS.p50}, p99 ≤ ${TARGETS.p99}`,
      ],
      latencyRows,
    ),
    '',
    `**What limits it** (V8 CPU profile of the main thread in one fan-out-1 throughput run; time in Node's own code charged to the package that called it; the emulators run on a thread of their own, local/emulator-thread.ts, and are not in this profile: the main thread's idle share is mostly its wait for them):`,
    '',
    table(
      ["where the main thread's time went", 'share'],
      [...grouped].sort((a, b) => b[1] - a[1]).map(([name, share]) => [name, `${(share * 100).toFixed(0)} %`]),
    ),
    '',
    `The SDK's client work for the emulator round trips takes most of the busy main thread; Hookline's own code (lambdas/) takes ${fmt(100 * profile.filter((p) => p.name.startsWith('lambdas/')).reduce((a, p) => a + p.share, 0), 0)} %. ` +
      `More concurrent sender batches change the rate from ${fmt(t1, 0)} to ${fmt(tWide, 0)} per second, so the ceiling is the shared CPU (emulators on one thread; SDK, handlers, gateway and load generator on the other; 2 cores), not the runtime's concurrency. ` +
      'On AWS each of these is a separate service and the sender scales out with the event source mapping, so this figure is a property of the local runtime, not of the design.',
  ].join('\n');
}

export function renderRetryTiming(runs: readonly RetryTimingRun[], policy: object): string {
  const all = runs.flatMap((r) => r.lateness);
  const early = runs.reduce((s, r) => s + r.early, 0);
  const outside = runs.reduce((s, r) => s + r.outsideJitterBounds, 0);
  const maxLate = Math.max(...all);
  return [
    '### Retry timing accuracy',
    '',
    `${runs[0]!.deliveries} deliveries per run, ${runs.length} run(s); the receiver answers 500 ${runs[0]!.failuresFirst} times, then 200. Policy \`${JSON.stringify(policy)}\`. Scheduled: the \`nextAttemptAt\` the sender wrote after each failure (it includes the jitter drawn); actual: the retry's \`startedAt\` in the attempt log.`,
    '',
    table(
      [
        'retries',
        'early (must be 0)',
        'late p50 ms',
        'late p95 ms',
        'late max ms',
        'gaps outside delay ± jitter',
        'target: none early, late ≤ 1 s + jitter',
      ],
      [
        [
          all.length,
          early,
          fmt(percentile(all, 50), 0),
          fmt(percentile(all, 95), 0),
          fmt(maxLate, 0),
          outside,
          mark(early === 0 && maxLate <= 1000 && outside === 0),
        ],
      ],
    ),
    '',
    "A retry can never start early: its message is sent with its delay after the outcome that set `nextAttemptAt` is written, so it cannot arrive before it. The lateness is the poller's receive loop plus the gathering of the moment's retries (100 ms).",
  ].join('\n');
}

export function renderColdStart(results: readonly ColdStart[], bareNodeMs: number, runs: number): string {
  const fns = [...new Set(results.map((r) => r.fn))];
  const get = (fn: string, sdk: ColdStart['sdk']) => results.find((r) => r.fn === fn && r.sdk === sdk)!;
  const sender = get('sender', 'bundled');
  return [
    '### Cold start',
    '',
    `Each entry in \`lambdas/functions/\` bundled as the CDK does (esbuild, ESM, node22, minified, source map not counted), once with the AWS SDK inside (what the stack deploys) and once with \`@aws-sdk/*\` left to the Lambda runtime's copy. Init: time to import the bundle and run its module scope (clients, configuration) in a fresh Node ${process.version} process with the function's environment set; median of ${runs} processes each. A bare \`node -e ''\` takes ${fmt(bareNodeMs, 0)} ms to start and exit, which no bundle can avoid.`,
    '',
    table(
      ['function', 'bundled size (SDK inside)', 'init ms', 'size (SDK external)', 'init ms (SDK from node_modules)'],
      fns.map((fn) => [
        fn,
        `${fmt(get(fn, 'bundled').bytes / 1024, 0)} KB`,
        fmt(get(fn, 'bundled').initMs, 0),
        `${fmt(get(fn, 'external').bytes / 1024, 0)} KB`,
        fmt(get(fn, 'external').initMs, 0),
      ]),
    ),
    '',
    `Sender targets: ≤ ${TARGETS.senderKb} KB minified: ${fmt(sender.bytes / 1024, 0)} KB with the SDK inside (${mark(sender.bytes / 1024 <= TARGETS.senderKb)}), ${fmt(get('sender', 'external').bytes / 1024, 0)} KB without (${mark(get('sender', 'external').bytes / 1024 <= TARGETS.senderKb)}); init ≤ ${TARGETS.initMs} ms: ${fmt(sender.initMs, 0)} ms (${mark(sender.initMs <= TARGETS.initMs)}).`,
    '',
    `Largest parts of the sender bundle (SDK inside): ${sender.largest.map((l) => `${l.name} ${fmt(l.bytes / 1024, 0)} KB`).join(', ')}.` +
      (sender.largest.some((l) => l.name === '@aws-sdk/nested-clients')
        ? ' `@aws-sdk/nested-clients` holds the STS and SSO clients of the default credential chain, which a Lambda function never uses (its credentials are in the environment): a client built with the environment credential provider alone would leave it out.'
        : ''),
  ].join('\n');
}

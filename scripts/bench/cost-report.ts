import type { CostRun } from './cost.ts';
import { endsDelivered, type CostScenario, type ScenarioId } from './scenario.ts';
import { eventBridgePerMillion, naivePerMillion } from './cost-model.ts';
import { allInRows, renderAllIn } from './all-in-report.ts';
import type { BackgroundCost } from './background.ts';
import { table } from './benchmarks-file.ts';
import { PRICE_TABLE_MARKDOWN, PRICES } from './prices.ts';
import { singlePublishFloor, unsharedPublishFloor } from './publish-floor.ts';
import { fmt, medianRun, usd } from './stats.ts';
import {
  DAYS_PER_MONTH,
  ITEM_OVERHEAD_BYTES,
  keptParts,
  storagePerMillionEvents,
  type StorageCost,
} from './storage.ts';
import {
  COST_TARGETS,
  costTargetRows,
  HAPPY_ROW_TARGET_BYTES,
  STORAGE_TARGET_DOLLARS,
  verdict,
  verdictText,
  type TargetRow,
} from './targets.ts';

/** A scenario the run could not measure, and why (e.g. a route this build does not have). */
export interface Unmeasured {
  readonly scenario: CostScenario;
  readonly reason: string;
}

/** Each scenario's median run (by total cost): the figures every cost table and chart reads. */
export function costRows(runs: readonly CostRun[][]) {
  return runs.map((r) => {
    const m = medianRun(r, (x) => x.perDelivery.dollarsPerMillion.total);
    return { scenario: m.scenario, p: m.perDelivery, usage: m.usage, logs: m.logs, cpuMs: m.cpuMs, n: r.length };
  });
}
type Row = ReturnType<typeof costRows>[number];

/** What the same deliveries would cost on EventBridge API destinations and on the straightforward design. */
export function alternativesPerMillion(row: Row): { readonly eventBridge: number; readonly straightforward: number } {
  const attempts = row.scenario.failuresFirst + 1;
  return {
    eventBridge: eventBridgePerMillion(row.scenario.fanOut, attempts),
    straightforward: naivePerMillion(
      row.scenario.fanOut,
      attempts,
      row.p.lambdaGbSeconds / attempts,
      row.scenario.publish,
      row.scenario.eventsPerRequest,
    ),
  };
}

export function renderCost(
  runs: readonly CostRun[][],
  unmeasured: readonly Unmeasured[] = [],
  background?: BackgroundCost,
): string {
  const rows = costRows(runs);
  const byId = new Map<ScenarioId, Row>(rows.map((r) => [r.scenario.id, r]));
  const main = table(
    [
      'scenario',
      'WRU / delivery (table + index + refused)',
      'RRU',
      'SQS requests (msgs per receive)',
      'Lambda invocations (api + ingest + sender)',
      'Lambda GB-s',
      'API GW',
      'DynamoDB',
      'SQS',
      'Lambda',
      'API GW',
      '**total per million deliveries**',
    ],
    [
      ...rows.map(({ scenario, p }) => [
        scenario.name,
        `${fmt(p.writeUnits, 2)} (${fmt(p.tableWrites, 2)} + ${fmt(p.indexWrites, 2)} + ${fmt(p.conditionFailures, 2)})`,
        fmt(p.readUnits, 2),
        `${fmt(p.sqsRequests, 2)} (${fmt(p.messagesPerReceive, 1)})`,
        `${fmt(p.lambdaInvocations, 3)} (${fmt(p.invocationsByFunction.api ?? 0, 2)} + ${fmt(p.invocationsByFunction.ingest ?? 0, 2)} + ${fmt(p.invocationsByFunction.sender ?? 0, 2)})`,
        p.lambdaGbSeconds.toFixed(4),
        fmt(p.apiRequests, 2),
        usd(p.dollarsPerMillion.dynamodb),
        usd(p.dollarsPerMillion.sqs),
        usd(p.dollarsPerMillion.lambda),
        usd(p.dollarsPerMillion.apiGateway),
        `**${usd(p.dollarsPerMillion.total)}**`,
      ]),
      ...unmeasured.map(({ scenario, reason }) => [
        scenario.name,
        `not measured: ${reason}`,
        ...Array<string>(10).fill(''),
      ]),
    ],
  );
  const sizes = happyPathRows(runs);
  const storageRow = byId.get('fo1-sqs');
  const storage = storageRow && storagePerMillionEvents(keptParts(storageRow.usage.items, storageRow.scenario.events));
  // A publish batch's manifest is one item per batch, its size the batch's ids: its units are in the WRU column, amortised; the 1 KB rule is for the rows every delivery writes.
  const largest = sizes
    .filter((r) => r.table !== 'ingestManifests')
    .reduce<(typeof sizes)[number] | undefined>((a, s) => (!a || s.bytes > a.bytes ? s : a), undefined);
  const targets: TargetRow[] = [
    ...costTargetRows(
      new Map(rows.map((r) => [r.scenario.id, r.p])),
      new Map(unmeasured.map((u) => [u.scenario.id, u.reason])),
    ),
    {
      what: 'storage per million events kept for the default retention (fan-out 1, first try)',
      target: `≤ ${usd(STORAGE_TARGET_DOLLARS)}`,
      measured: storage ? usd(storage.dollarsPerMillionEvents) : '',
      verdict: verdict(storage?.dollarsPerMillionEvents, STORAGE_TARGET_DOLLARS, 'scenario fo1-sqs not in this run'),
    },
    {
      what: 'happy-path rows per delivery (events, deliveries; first-try scenarios), the largest',
      target: `≤ ${HAPPY_ROW_TARGET_BYTES} B (1 KB)`,
      measured: largest ? `${largest.bytes} B (${largest.table})` : '',
      verdict: verdict(largest?.bytes, HAPPY_ROW_TARGET_BYTES, 'no first-try scenario in this run'),
    },
  ];
  const breakdownRow = byId.get('fo1-sqs') ?? rows[0]!;
  return [
    '### AWS cost per million deliveries',
    '',
    `Counted during local runs of the real handlers: every AWS SDK call by service, operation and target (a middleware on the runtime's DynamoDB and SQS clients), DynamoDB capacity from \`ReturnConsumedCapacity: TOTAL\`, Lambda invocations and handler time through the runtime's \`wrapHandler\` hook. 1 KB payloads; each row is the median (by total) of ${rows[0]?.n ?? 0} run(s). ${PRICE_TABLE_MARKDOWN}`,
    '',
    main,
    '',
    '**Targets** (issue "Lean write path", 1 KB payloads):',
    '',
    table(
      ['target', 'limit', 'measured', 'verdict'],
      targets.map((t) => [t.what, t.target, t.measured, verdictText(t.verdict)]),
    ),
    '',
    renderPublishFloor(byId.get('fo1-http')),
    '',
    `**Item sizes.** The largest row each table was written with in the first-try scenarios (DynamoDB's item size: attribute names plus values; a put's item as sent, an update's item as read back after it); a row over 1 KB costs a write unit per started KB on every write, and again in every index that projects it:`,
    '',
    table(
      [
        'table',
        'largest row',
        'write units per write',
        'written by',
        'scenario',
        'rows left at the end (of item writes)',
        `≤ ${HAPPY_ROW_TARGET_BYTES} B`,
      ],
      sizes.map((s) => [
        s.table,
        `${s.bytes} B`,
        Math.max(1, Math.ceil(s.bytes / 1024)),
        `\`${s.op}\``,
        s.scenario,
        s.left,
        s.table === 'ingestManifests'
          ? 'one per batch (not per delivery)'
          : verdictText(verdict(s.bytes, HAPPY_ROW_TARGET_BYTES)),
      ]),
    ),
    '',
    storage ? renderStorage(storage) : '**Storage**: not measured (scenario fo1-sqs not in this run).',
    '',
    // Each scenario's storage from the rows its own run left, per delivery: a retry's attempts, a dead letter's 90 days.
    renderAllIn(
      allInRows(rows, background, (id) => {
        const run = byId.get(id);
        return run && storagePerMillionEvents(keptParts(run.usage.items, run.scenario.events * run.scenario.fanOut));
      }),
    ),
    '',
    limits(breakdownRow),
    '',
    '**Side by side**',
    '',
    table(
      ['scenario', 'Hookline (measured)', 'EventBridge API destinations', 'straightforward design (modelled)'],
      rows.map((row) => {
        const alt = alternativesPerMillion(row);
        return [row.scenario.name, usd(row.p.dollarsPerMillion.total), usd(alt.eventBridge), usd(alt.straightforward)];
      }),
    ),
    '',
    `EventBridge: $1.00 per million events (one event per publish, shared by the fan-out) plus $0.20 per million API destination invocations; retried invocations assumed billed, a 4xx not retried. The straightforward design is modelled, not run: per delivery a delivery record carrying the body (2 WRU), an attempt record (1 WRU) and a state update (2 WRU) per attempt, one consistent read per attempt, SQS send + receive + delete one message at a time, one Lambda invocation per attempt with the GB-seconds measured here, and the publish as one API Gateway request (HTTP API price) and one Lambda invocation per request (or SQS send/receive/delete and one invocation per event).`,
    '',
    `**Where the cost goes** (${breakdownRow.scenario.name}, per delivery, one run):`,
    '',
    breakdown(breakdownRow.usage, breakdownRow.scenario.events * breakdownRow.scenario.fanOut),
    '',
    'How the figures are counted:',
    "- Index write units are computed, not reported: dynalite returns table capacity only, so every write to an indexed table is bracketed by two uncounted reads and the index writes follow DynamoDB's documented rules (entering or leaving an index: 1 write; key change: 2; projected attribute change: 1; rounded up per KB). The same reads give the item sizes of updates; a put's size is read off its serialized request.",
    '- Refused conditional writes are charged 1 WRU each (DynamoDB bills them; the emulator reports nothing for a failed request).',
    '- SQS requests are billed per 64 KB of payload (a send by its message bodies, a receive by the bodies it returned); API requests per 512 KB of request body, at the HTTP API price.',
    `- Left out as fixed, not per-delivery, costs: empty receives (idle polling; on AWS the event source mapping's long polls, about $0.26 a month per queue), key checks (each container keeps a key's grant for 30 s, as API Gateway caches its authorizer's answer), the sweeper (one invocation and a few keys-only index queries a minute; it also checks each publish batch's manifest once its grace has passed, then moves that shard's watermark, at most 16 small writes a run, and its BatchGet of the batch's rows, about 0.5 RRU a delivery, is not counted either; the manifests themselves stay as the event log until TTL, which deletes for free), and the subscription Scan fan-out does (${fmt(breakdownRow.p.subscriptionScanReadUnits, 2)} RRU per delivery here). The bench's runtime caches subscriptions for 5 s as Lambda containers do, so the sender's reads of them are counted as AWS would see them.`,
    "- Lambda GB-seconds use the handler time measured here times the function's configured memory. Locally a handler's time includes waiting for the CPU it shares with the emulators, the other handlers and the meter's own reads; on Lambda each invocation has its own CPU and DynamoDB answers in single-digit milliseconds, so the duration part of the Lambda column is an overestimate.",
  ].join('\n');
}

/**
 * The single HTTP publish's floor (publish-floor.ts) beside what was measured and its target:
 * a target below the floor says so, since no optimisation can meet it.
 */
export function renderPublishFloor(row: Row | undefined): string {
  const floor = singlePublishFloor();
  const limit = COST_TARGETS.find((t) => t.scenario === 'fo1-http' && t.figure === 'dollarsPerMillion')!.limit;
  const measured = row
    ? ` Measured here: ${usd(row.p.dollarsPerMillion.total)}, of which Lambda ${usd(row.p.dollarsPerMillion.lambda)} (its duration part is the local overestimate explained below) and SQS ${usd(row.p.dollarsPerMillion.sqs)}.`
    : '';
  const belowFloor =
    limit < floor.total
      ? ` The target of ≤ ${usd(limit)} is ${usd(floor.total - limit)} below it. What is left above the target is each publish's own: its invocation, its event's write and its manifest, and its delivery's outcome write.`
      : '';
  return (
    `**The floor of a single publish over HTTP** (first try, fan-out 1; publish answers synchronously, keeps idempotency and a durable record of the deliveries it accepted): ` +
    floor.parts.map((p) => `${p.what} ${usd(p.dollars)}`).join(' + ') +
    ` = **${usd(floor.total)} per million**, before the sender's receive and delete and any Lambda duration.${measured}${belowFloor}` +
    ` That floor is at volume: at a few publishes a second a stream batch holds one event and a receive one message, so the fan-out's invocation and send and the sender's receive, delete and invocation are each publish's own, and the floor is **${usd(unsharedPublishFloor())}** (docs/aws.md, "The rate the figures hold at").`
  );
}

/** The largest row per table over every run of the first-try (delivered at once) scenarios. */
function happyPathRows(runs: readonly CostRun[][]) {
  const largest = new Map<string, { table: string; bytes: number; op: string; scenario: string; left: string }>();
  for (const run of runs.flat().filter((r) => r.scenario.failuresFirst === 0 && endsDelivered(r.scenario))) {
    for (const [tableKey, items] of Object.entries(run.usage.items)) {
      if (!items || items.largestBytes <= (largest.get(tableKey)?.bytes ?? 0)) continue;
      // How many of the rows written are still there (a manifest is kept as the event log, until TTL).
      const left = `${items.kept.size} of ${items.writes} writes`;
      largest.set(tableKey, {
        table: tableKey,
        bytes: items.largestBytes,
        op: items.largestOp,
        scenario: run.scenario.name,
        left,
      });
    }
  }
  return [...largest.values()].sort((a, b) => b.bytes - a.bytes);
}

function renderStorage(storage: StorageCost): string {
  const line = (p: StorageCost['parts'][number]) =>
    `- ${p.table}: ${fmt(p.rowsPerEvent, 2)} row(s) per event × ${fmt(p.bytesPerRow, 0)} B × 10⁶ events / 2³⁰ B per GB × ${fmt(p.keptFor.days, 1)} days / ${fmt(DAYS_PER_MONTH, 2)} days per month = ${fmt(p.gbMonthsPerMillionEvents, 3)} GB-months × $${PRICES.dynamodbStorageGbMonth} = **${usd(p.dollarsPerMillionEvents)}**; kept for ${p.keptFor.rule}.`;
  return [
    `**Storage** per million events kept for the default retention, from the rows the first-try fan-out-1 ingest-queue run left behind (each row billed at its item size + ${ITEM_OVERHEAD_BYTES} B overhead, plus its entry, + ${ITEM_OVERHEAD_BYTES} B, in every index it sits in; GB as DynamoDB counts it, 2³⁰ B):`,
    '',
    ...storage.parts.map(line),
    `- total: **${usd(storage.dollarsPerMillionEvents)} per million events**, what a million events cost in storage over their whole stay: at a steady N million events a month the monthly storage bill is N × this (point-in-time recovery, on in the stack, adds $0.20 per GB-month on top).`,
  ].join('\n');
}

/** What keeps the target scenario's figures where they are: its largest contributors, per delivery, as measured. */
function limits(row: Row): string {
  const per = (n: number) => n / (row.scenario.events * row.scenario.fanOut);
  const calls = Object.entries(row.usage.calls);
  const writes = calls
    .filter(([k, c]) => k.startsWith('DynamoDB ') && c.writeUnits + c.indexWriteUnits > 0)
    .sort((a, b) => b[1].writeUnits + b[1].indexWriteUnits - (a[1].writeUnits + a[1].indexWriteUnits))
    .map(
      ([k, c]) =>
        `\`${k.slice(9)}\` ${fmt(per(c.writeUnits), 2)}${c.indexWriteUnits ? ` + ${fmt(per(c.indexWriteUnits), 2)} index` : ''}`,
    );
  const sqs = calls
    .filter(([k, c]) => k.startsWith('SQS ') && c.billedRequests > 0)
    .map(([k, c]) => [k, per(c.billedRequests)] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `\`${k.slice(4)}\` ${fmt(n, 2)}`);
  const fns = Object.entries(row.p.invocationsByFunction)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([fn, n]) => `${fn} ${fmt(n ?? 0, 3)}`);
  return [
    `**What limits it** (${row.scenario.name}, per delivery, measured; the breakdown below has every call):`,
    `- DynamoDB writes, ${fmt(row.p.writeUnits, 2)} WRU (${fmt(row.p.indexWrites, 2)} of them index writes, ${fmt(row.p.conditionFailures, 2)} refused conditions): ${writes.join(', ') || 'none'}.`,
    `- SQS, ${fmt(row.p.sqsRequests, 2)} billed requests (idle receives left out; ${fmt(row.p.messagesPerReceive, 1)} messages per receive): ${sqs.join(', ') || 'none'}.`,
    `- Lambda, ${fmt(row.p.lambdaInvocations, 3)} invocations: ${fns.join(', ') || 'none'}. Over HTTP the API function also runs once per request, and API Gateway adds $1.00 per million requests (HTTP API; REST would be $3.50).`,
    // Health (success rate, latency, last failure, failing since) is worked out when read (GET /v1/subscriptions/{id}/stats,
    // the dashboard), so the send path writes nothing for it: any write to a table named for stats or health would show here.
    `- Endpoint health bookkeeping (the stats and the dashboard's health view), ${fmt(per(healthWrites(calls)), 2)} WRU: computed at read time from the deliveries and attempts above, no counter written per delivery.`,
  ].join('\n');
}

/** Write units spent on tables that keep per-subscription health (there are none: it is computed when read). */
function healthWrites(
  calls: readonly (readonly [string, { readonly writeUnits: number; readonly indexWriteUnits: number }])[],
): number {
  return calls
    .filter(([k]) => k.startsWith('DynamoDB ') && /stat|health/i.test(k))
    .reduce((sum, [, c]) => sum + c.writeUnits + c.indexWriteUnits, 0);
}

function breakdown(usage: CostRun['usage'], deliveries: number): string {
  const rows = Object.entries(usage.calls)
    .map(([key, c]) => ({ key, c }))
    .filter(({ key, c }) => !(key.startsWith('SQS ReceiveMessage') && c.count === 0))
    .sort(
      (a, b) => b.c.writeUnits + b.c.indexWriteUnits - (a.c.writeUnits + a.c.indexWriteUnits) || b.c.count - a.c.count,
    );
  return `${table(
    ['call', 'per delivery', 'WRU', 'index WRU', 'RRU'],
    rows.map(({ key, c }) => [
      `\`${key}\``,
      fmt(c.count / deliveries, 2),
      fmt(c.writeUnits / deliveries, 2),
      fmt(c.indexWriteUnits / deliveries, 2),
      fmt(c.readUnits / deliveries, 2),
    ]),
  )}\n\nReceiveMessage calls above include ${usage.emptyReceives} empty (idle) receives that the cost leaves out; ${usage.receivesWithMessages} receives returned ${usage.messagesReceived} messages.`;
}

import { OBSERVABILITY_DEFAULTS } from '#config/topology.ts';
import { DATA_KEY_CACHE_DEFAULTS } from '#adapters/kms-secret-cipher.ts';
import { type AllIn, allInPerMillion, kmsDecryptsPerAttempt, LATENCY_MS } from './all-in.ts';
import { entryAccessLogBytes } from './log-records.ts';
import { DEFAULT_API_ENTRY } from './prices.ts';
import { STATED_DELIVERIES_PER_SECOND, TRAFFIC } from './traffic.ts';
import { staticEgressPerMillion } from './all-in-background.ts';
import { atStatedTraffic, statedTrafficRun } from './at-stated-traffic.ts';
import type { BackgroundCost } from './background.ts';
import { table } from './benchmarks-file.ts';
import type { CostRun } from './cost.ts';
import type { PerDelivery } from './cost-model.ts';
import type { ScenarioId } from './scenario.ts';
import type { StorageCost } from './storage.ts';
import { ALL_IN_TARGETS, verdict, verdictText } from './targets.ts';
import { usd } from './stats.ts';

export interface AllInRow {
  readonly run: Pick<CostRun, 'scenario' | 'logs' | 'cpuMs'> & { readonly p: PerDelivery };
  readonly allIn: AllIn;
}

const GROUPS: Readonly<Record<string, readonly string[]>> = {
  'requests (metered)': ['DynamoDB requests', 'SQS', 'API Gateway', 'Lambda requests'],
  'Lambda duration': ['Lambda duration'],
  logs: ['CloudWatch Logs'],
  'X-Ray': ['X-Ray'],
  KMS: ['KMS'],
  'storage, PITR, archive': ['DynamoDB storage', 'Point-in-time recovery', 'Archiver'],
  'background runs': ['Scheduled runs', 'Sweeper manifest checks'],
};

/** Each scenario's all-in figure: the measured calls, then every other service a deployment pays for. */
export function allInRows(
  rows: readonly (Pick<CostRun, 'scenario' | 'logs' | 'cpuMs'> & { readonly p: PerDelivery })[],
  background: BackgroundCost | undefined,
  storageOf: (scenarioId: ScenarioId) => StorageCost | undefined,
): AllInRow[] {
  return rows.map((run) => ({
    run,
    allIn: allInPerMillion({
      scenario: run.scenario,
      p: run.p,
      logs: run.logs,
      cpuMs: run.cpuMs,
      background,
      storage: storageOf(run.scenario.id),
    }),
  }));
}

export function renderAllIn(rows: readonly AllInRow[]): string {
  const sum = (a: AllIn, services: readonly string[]) =>
    a.parts.filter((x) => services.includes(x.service)).reduce((n, x) => n + x.dollars, 0);
  const main = table(
    ['scenario', ...Object.keys(GROUPS), '**all-in**', 'target', 'verdict'],
    rows.map(({ run, allIn }) => {
      const limit = ALL_IN_TARGETS[run.scenario.id];
      return [
        run.scenario.name,
        ...Object.values(GROUPS).map((services) => usd(sum(allIn, services))),
        `**${usd(allIn.total)}**`,
        limit === undefined ? '' : `≤ ${usd(limit)}`,
        limit === undefined ? '' : verdictText(verdict(allIn.total, limit)),
      ];
    }),
  );
  const detail = rows.find((r) => r.run.scenario.id === 'fo1-http') ?? rows[0];
  const egress = rows.find((r) => r.run.scenario.id === 'fo1-sqs') ?? rows[0];
  const nat = egress && staticEgressPerMillion(1);
  return [
    '**All-in: every service a deployment is billed for** (per million deliveries, at the stack defaults: ' +
      `logs at ${OBSERVABILITY_DEFAULTS.logLevel}, Lambda's platform records at ${OBSERVABILITY_DEFAULTS.platformLogLevel}, ` +
      `the ${OBSERVABILITY_DEFAULTS.apiAccessLog} access log, X-Ray ${OBSERVABILITY_DEFAULTS.tracing ? 'on' : 'off'}, ` +
      `${OBSERVABILITY_DEFAULTS.logRetentionDays}-day log retention, point-in-time recovery on). ` +
      `Stated traffic: ${TRAFFIC.deliveriesPerMonth / 1e6} million deliveries a month over ${TRAFFIC.subscriptions} subscriptions, ` +
      `${TRAFFIC.senderContainers} warm sender containers, each container replaced every ${TRAFFIC.containerLifetimeHours} h.`,
    '',
    main,
    '',
    ...(detail
      ? [
          `Every part of ${detail.run.scenario.name}:`,
          '',
          table(
            ['service', 'per million', 'basis', 'how'],
            detail.allIn.parts.map((x) => [x.service, usd(x.dollars), x.basis, x.how]),
          ),
          '',
          ...(detail.run.scenario.id === 'fo1-http'
            ? atStatedTraffic(
                { requests: sum(detail.allIn, GROUPS['requests (metered)']!), allIn: detail.allIn.total },
                statedTrafficRun(),
              )
            : []),
        ]
      : []),
    'What is measured and what is modelled:',
    '- Measured: every DynamoDB, SQS and S3 call and its units, Lambda invocations, API requests (as above); the bytes the handlers log at the default level (the real Powertools logger, serialised as on Lambda, counted instead of printed); the archiver, sweeper, replay and notifier runs, metered the same way; the rows left behind (storage, and PITR on the same GB-months); process CPU per delivery. The requests column is the table above without its Lambda GB-seconds (the local wall time the duration column replaces). Storage and PITR come from the rows the run of each scenario left, per delivery, each kept by the rule of its table (a delivered row 30 days, a dead letter 90 and then archived, the attempt rows of a retry until their own TTL (those of a dead letter too), an event for its TTL); the archive from two runs of the archiver, over rows attempted once and over rows attempted twice (one attempt in the attempts table), so the archival of each scenario counts its own attempt rows.',
    `- Modelled: Lambda duration from in-region round trips (DynamoDB ${LATENCY_MS.dynamodb} ms, SQS ${LATENCY_MS.sqs} ms), a receiver answering in ${LATENCY_MS.receiver} ms, the run's CPU per delivery (an upper bound: the emulators and the receiver run in the same process), and an INIT of ${LATENCY_MS.init} ms per container start (cold start area: 110 to 262 ms of module init); the deployed function names and X-Ray trace id each record carries; Lambda's START, END and REPORT lines (written only at a platform log level below WARN) and one Powertools EMF document per invocation; the access log record per API request at the default entry, ${DEFAULT_API_ENTRY} (${entryAccessLogBytes()} B; behind API Gateway one record rendered from API_ACCESS_LOG_FORMATS); X-Ray at Lambda's fixed sampling (1 a second, then 5 %) at the stated rate; KMS Decrypts from the data-key cache (${DATA_KEY_CACHE_DEFAULTS.ttlMs / 60_000} min, ${DATA_KEY_CACHE_DEFAULTS.maxKeys} keys) at the stated rate, over ${TRAFFIC.ringsInUse} shared data keys (the keyring's one a month; a key per subscription, as before the keyring, would be ${kmsDecryptsPerAttempt(STATED_DELIVERIES_PER_SECOND, TRAFFIC.subscriptions).toFixed(3)} Decrypts a first-try delivery here); CloudWatch Logs storage on raw bytes (it bills compressed bytes: an upper bound).`,
    `- Not in the total: NAT when egress is static (off by default): ${nat ? `${usd(nat.dollars)} per million first-try deliveries, ${nat.how}` : 'not computed'}. Key checks: the api keeps each key's grant for 30 s per container (a tenant key's lookup, one read, twice a minute per busy container; the admin key from Secrets Manager every 5 minutes), as API Gateway caches its authorizer's answer with the other entries. Empty receives: a fixed $0.26 a month per queue.`,
  ].join('\n');
}

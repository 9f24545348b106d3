import type { ScenarioId } from './scenario.ts';
import type { PerDelivery } from './cost-model.ts';
import { fmt } from './stats.ts';

/** The issue "Lean write path": what `npm run bench` must show, 1 KB payloads. */
export type Verdict =
  | { readonly kind: 'met' }
  | { readonly kind: 'not met' }
  | { readonly kind: 'not measured'; readonly reason: string };

/** At most `limit`; a missing or non-finite figure is not measured, with the reason given. */
export function verdict(measured: number | undefined, limit: number, reason = 'no figure'): Verdict {
  if (measured === undefined || !Number.isFinite(measured)) return { kind: 'not measured', reason };
  return measured <= limit ? { kind: 'met' } : { kind: 'not met' };
}

export const verdictText = (v: Verdict): string =>
  v.kind === 'met' ? 'met' : v.kind === 'not met' ? '**not met**' : `not measured: ${v.reason}`;

type Figure = 'dollarsPerMillion' | 'writeUnits' | 'sqsRequests' | 'lambdaInvocations';

const FIGURES: Record<
  Figure,
  { readonly label: string; readonly read: (p: PerDelivery) => number; readonly show: (n: number) => string }
> = {
  dollarsPerMillion: {
    label: 'per million deliveries',
    read: (p) => p.dollarsPerMillion.total,
    show: (n) => `$${fmt(n, 2)}`,
  },
  writeUnits: { label: 'WRU per delivery', read: (p) => p.writeUnits, show: (n) => fmt(n, 2) },
  sqsRequests: { label: 'SQS requests per delivery', read: (p) => p.sqsRequests, show: (n) => fmt(n, 2) },
  lambdaInvocations: {
    label: 'Lambda invocations per delivery',
    read: (p) => p.lambdaInvocations,
    show: (n) => fmt(n, 3),
  },
};

export interface CostTarget {
  readonly scenario: ScenarioId;
  readonly what: string;
  readonly figure: Figure;
  readonly limit: number;
}

const fo1Sqs = 'first try, fan-out 1, ingest queue';
export const COST_TARGETS: readonly CostTarget[] = [
  { scenario: 'fo1-sqs', what: fo1Sqs, figure: 'dollarsPerMillion', limit: 1.75 },
  { scenario: 'fo1-sqs', what: fo1Sqs, figure: 'writeUnits', limit: 2.1 },
  { scenario: 'fo1-sqs', what: fo1Sqs, figure: 'sqsRequests', limit: 0.4 },
  { scenario: 'fo1-sqs', what: fo1Sqs, figure: 'lambdaInvocations', limit: 0.05 },
  { scenario: 'fo10-sqs', what: 'first try, fan-out 10, ingest queue', figure: 'dollarsPerMillion', limit: 1.0 },
  { scenario: 'retry-sqs', what: '500, 500, 200, fan-out 1, ingest queue', figure: 'dollarsPerMillion', limit: 8 },
  {
    scenario: 'dlq-sqs',
    what: 'permanent 4xx → dead letter, fan-out 1, ingest queue',
    figure: 'dollarsPerMillion',
    limit: 4.5,
  },
  {
    scenario: 'fo1-http',
    what: 'first try, fan-out 1, single publish over HTTP',
    figure: 'dollarsPerMillion',
    limit: 3.0,
  },
  {
    scenario: 'fo1-http-batch',
    what: 'first try, fan-out 1, batch publish over HTTP, 100 events per request',
    figure: 'dollarsPerMillion',
    limit: 1.9,
  },
];

/** The issue "The whole bill": all-in per million deliveries, 1 KB, fan-out 1, first try unless named. */
export const ALL_IN_TARGETS: Readonly<Partial<Record<ScenarioId, number>>> = {
  'fo1-http': 2.5,
  'fo1-sqs': 1.6,
  'fo1-http-batch': 1.6,
  'retry-sqs': 5.0,
  'down-sqs': 8.0,
};

/** Storage per million events kept for the default retention (fan-out 1, first try). */
export const STORAGE_TARGET_DOLLARS = 0.5;
/** Every row the happy path writes fits one write unit. */
export const HAPPY_ROW_TARGET_BYTES = 1024;

export interface TargetRow {
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: Verdict;
}

/**
 * Each cost target against its scenario's figure: measured, not measured with the run's reason
 * (a route this build lacks), or not measured because the run did not include the scenario.
 */
export function costTargetRows(
  measured: ReadonlyMap<ScenarioId, PerDelivery>,
  notMeasured: ReadonlyMap<ScenarioId, string>,
  targets: readonly CostTarget[] = COST_TARGETS,
): TargetRow[] {
  return targets.map((t) => {
    const f = FIGURES[t.figure];
    const p = measured.get(t.scenario);
    const value = p && f.read(p);
    return {
      what: `${t.what}: ${f.label}`,
      target: `≤ ${f.show(t.limit)}`,
      measured: value === undefined ? '' : f.show(value),
      verdict: verdict(value, t.limit, notMeasured.get(t.scenario) ?? `scenario ${t.scenario} not in this run`),
    };
  });
}

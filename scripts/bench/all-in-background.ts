import {
  ARCHIVE_LIFECYCLE_DEFAULTS as ARCHIVE_LIFECYCLE,
  FUNCTIONS,
  SCHEDULES,
  type FunctionKey,
} from '#config/topology.ts';
import type { AllInInputs, AllInPart } from './all-in.ts';
import { TRAFFIC } from './traffic.ts';
import { combineArchival, type RunCost } from './background.ts';
import { endsDelivered } from './scenario.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { PRICES } from './prices.ts';
import { DAYS_PER_MONTH, GB } from './storage.ts';
import { usd } from './stats.ts';

const MILLION = 1e6;

/** The least a scheduled run is billed for: Lambda's own start of the handler, middy and the first call. */
const MIN_RUN_MS = 50;

/** The functions no delivery invokes, the storage's backups and the archive, per million deliveries. */
export function backgroundParts(input: AllInInputs): AllInPart[] {
  const parts: AllInPart[] = [];
  const b = input.background;
  if (b) {
    const runsPerMonth = (fn: FunctionKey) =>
      SCHEDULES.filter((s) => s.function === fn).reduce((n, s) => n + (DAYS_PER_MONTH * 1440) / s.rateMinutes, 0);
    const perMillion = MILLION / TRAFFIC.deliveriesPerMonth;
    // One run's bill: its units (`per` times the measured figures: the notifier's grow with the subscriptions), one
    // request, and its duration, at least the MIN_RUN_MS a scheduled invocation's own overhead takes.
    const run = (fn: 'sweeper' | 'replay' | 'notifier', cost: RunCost, per = 1) =>
      runsPerMonth(fn) *
      (per * (cost.readUnits * PRICES.dynamodbReadRequestUnit + cost.writeUnits * PRICES.dynamodbWriteRequestUnit) +
        PRICES.lambdaRequest +
        (Math.max(per * cost.ms, MIN_RUN_MS) / 1000) * (FUNCTIONS[fn].memorySize / 1024) * PRICES.lambdaArmGbSecond);
    const scheduled =
      perMillion *
      (run('sweeper', b.idleRun.sweeper) +
        run('replay', b.idleRun.replay) +
        run('notifier', b.notifierPerSubscription, TRAFFIC.subscriptions));
    parts.push({
      service: 'Scheduled runs',
      dollars: scheduled,
      basis: 'measured × modelled',
      how: `sweeper, replay, notifier on their schedules, spread over ${TRAFFIC.deliveriesPerMonth / MILLION} M deliveries a month`,
    });
    const sweep =
      MILLION *
      (b.sweepPerDelivery.readUnits * PRICES.dynamodbReadRequestUnit +
        b.sweepPerDelivery.writeUnits * PRICES.dynamodbWriteRequestUnit);
    parts.push({
      service: 'Sweeper manifest checks',
      dollars: sweep,
      basis: 'measured',
      how: `${b.sweepPerDelivery.readUnits.toFixed(2)} RRU, ${b.sweepPerDelivery.writeUnits.toFixed(2)} WRU`,
    });
    // Dead letters always go through the archive; delivered rows only with archiveDelivered (else TTL, free).
    const archived = !endsDelivered(input.scenario) || DEFAULT_RETENTION.archiveDelivered === 1;
    // A row's archival, plus what each of its attempts in the attempts table adds (the scenario's own rows say how many).
    const logged = input.storage?.parts.find((part) => part.table === 'attempts')?.rowsPerEvent ?? 0;
    const each = b.archivalPerLoggedAttempt;
    const a = combineArchival(b.archival, each, (row, attempt) => row + logged * attempt);
    const archiveDays = ARCHIVE_LIFECYCLE.coldAfterDays;
    const coldDays = ARCHIVE_LIFECYCLE.expireAfterDays - archiveDays;
    const s3Storage =
      (a.s3Bytes / GB) *
      ((archiveDays * PRICES.s3StandardGbMonth + coldDays * PRICES.s3GlacierInstantGbMonth) / DAYS_PER_MONTH);
    parts.push({
      service: 'Archiver',
      dollars:
        (archived ? MILLION : 0) *
        (a.writeUnits * PRICES.dynamodbWriteRequestUnit +
          a.readUnits * PRICES.dynamodbReadRequestUnit +
          a.s3Puts * PRICES.s3Put +
          a.s3OtherRequests * PRICES.s3Get +
          s3Storage),
      basis: 'measured',
      how: archived
        ? `${a.readUnits.toFixed(2)} RRU and ${a.writeUnits.toFixed(2)} WRU to read and delete each row (${logged.toFixed(2)} attempts a row in the attempts table, each ${each.readUnits.toFixed(2)} RRU and ${each.writeUnits.toFixed(2)} WRU more: TTL deletes them), ${a.s3Puts.toFixed(3)} PUTs, ${a.s3Bytes.toFixed(0)} B kept ${ARCHIVE_LIFECYCLE.expireAfterDays} days`
        : `none: TTL deletes delivered rows for free (archiveDelivered off; on, ${a.readUnits.toFixed(2)} RRU and ${a.writeUnits.toFixed(2)} WRU a row)`,
    });
  }
  if (input.storage) {
    const gbMonths = input.storage.parts.reduce((n, part) => n + part.gbMonthsPerMillionEvents, 0);
    parts.push(
      {
        service: 'DynamoDB storage',
        dollars: input.storage.dollarsPerMillionEvents,
        basis: 'measured',
        how: `${gbMonths.toFixed(2)} GB-months over the default retention`,
      },
      {
        service: 'Point-in-time recovery',
        dollars: gbMonths * PRICES.dynamodbPitrGbMonth,
        basis: 'measured',
        how: `the same ${gbMonths.toFixed(2)} GB-months`,
      },
    );
  }
  return parts;
}

/**
 * NAT when egress is static: every attempt's request and answer pass the gateway, and the
 * gateways bill by the hour whatever the traffic. Not in the all-in total (static egress is off by default).
 */
export function staticEgressPerMillion(
  attempts: number,
  bytesPerAttempt = 2500,
  gateways = 2,
): { dollars: number; how: string } {
  const processed = MILLION * attempts * (bytesPerAttempt / GB) * PRICES.natGatewayGb;
  const hourly = (gateways * PRICES.natGatewayHour * DAYS_PER_MONTH * 24 * MILLION) / TRAFFIC.deliveriesPerMonth;
  return {
    dollars: processed + hourly,
    how: `${usd(processed)} processed (${bytesPerAttempt} B an attempt) + ${usd(hourly)} of ${gateways} gateways' hours`,
  };
}

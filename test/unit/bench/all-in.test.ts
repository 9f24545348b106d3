import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allInPerMillion, kmsDecryptsPerAttempt, xraySampledShare } from '../../../scripts/bench/all-in.ts';
import { TRAFFIC } from '../../../scripts/bench/traffic.ts';
import { staticEgressPerMillion } from '../../../scripts/bench/all-in-background.ts';
import { accessLogRecordBytes, emfDocumentBytes } from '../../../scripts/bench/log-records.ts';
import { allInRows, renderAllIn } from '../../../scripts/bench/all-in-report.ts';
import { ALL_IN_TARGETS } from '../../../scripts/bench/targets.ts';
import { archivalPerDelivery, type BackgroundCost } from '../../../scripts/bench/background.ts';
import type { CostScenario } from '../../../scripts/bench/scenario.ts';
import { perDelivery } from '../../../scripts/bench/cost-model.ts';
import { PRICES } from '../../../scripts/bench/prices.ts';
import { call, usage } from './usage-fixture.ts';

const scenario = (id: CostScenario['id'], over: Partial<CostScenario> = {}): CostScenario => ({
  id,
  name: id,
  fanOut: 1,
  events: 100,
  publish: 'sqs',
  failuresFirst: 0,
  finalStatus: 200,
  ...over,
});
// 100 deliveries: 2 WRU each, one ingest and one sender invocation per 10.
const P = perDelivery(
  usage({ 'DynamoDB PutItem hookline-deliveries': call({ count: 200, writeUnits: 200 }) }),
  { ingest: { invocations: 10, totalMs: 0, records: 100 }, sender: { invocations: 10, totalMs: 0, records: 100 } },
  100,
  0,
);
const LOGS = { lines: 100, bytes: 60_000 };
const BACKGROUND: BackgroundCost = {
  archival: { deliveries: 1, writeUnits: 1, readUnits: 2, s3Puts: 0.02, s3OtherRequests: 0.02, s3Bytes: 80 },
  archivalPerLoggedAttempt: { deliveries: 1, writeUnits: 0, readUnits: 0.5, s3Puts: 0, s3OtherRequests: 0, s3Bytes: 0 },
  sweepPerDelivery: { writeUnits: 0, readUnits: 1, ms: 1 },
  idleRun: { sweeper: { writeUnits: 0, readUnits: 4, ms: 80 }, replay: { writeUnits: 0, readUnits: 0, ms: 3 } },
  notifierPerSubscription: { writeUnits: 0, readUnits: 0.05, ms: 0.6 },
};
const part = (a: ReturnType<typeof allInPerMillion>, service: string) => a.parts.find((x) => x.service === service)!;

describe('all-in cost: every service a deployment is billed for', () => {
  it('keeps the metered calls as they are, and the total is the sum of its parts', () => {
    const a = allInPerMillion({ scenario: scenario('fo1-sqs'), p: P, logs: LOGS, cpuMs: 0, background: BACKGROUND });
    assert.equal(part(a, 'DynamoDB requests').dollars, P.dollarsPerMillion.dynamodb);
    assert.equal(part(a, 'DynamoDB requests').basis, 'measured');
    const sum = a.parts.reduce((n, x) => n + x.dollars, 0);
    assert.ok(Math.abs(a.total - sum) < 1e-9);
    assert.ok(a.total > P.dollarsPerMillion.total, 'the bill is more than the metered calls');
  });

  it('prices the bytes the handlers logged: twice the bytes, more log cost; $0.50 a GB ingested dominates', () => {
    const once = part(
      allInPerMillion({ scenario: scenario('fo1-sqs'), p: P, logs: LOGS, cpuMs: 0 }),
      'CloudWatch Logs',
    );
    const twice = part(
      allInPerMillion({ scenario: scenario('fo1-sqs'), p: P, logs: { lines: 100, bytes: 120_000 }, cpuMs: 0 }),
      'CloudWatch Logs',
    );
    // 600 more bytes a delivery: 6e8 bytes a million deliveries, at least the ingestion price of them.
    assert.ok(twice.dollars - once.dollars >= (6e8 / 2 ** 30) * PRICES.logsIngestionGb);
  });

  it('X-Ray costs nothing with tracing off and something with it on', () => {
    const off = allInPerMillion({ scenario: scenario('fo1-sqs'), p: P, logs: LOGS, cpuMs: 0, tracing: false });
    const on = allInPerMillion({ scenario: scenario('fo1-sqs'), p: P, logs: LOGS, cpuMs: 0, tracing: true });
    assert.equal(part(off, 'X-Ray').dollars, 0);
    assert.ok(part(on, 'X-Ray').dollars > 0);
    assert.ok(
      part(on, 'CloudWatch Logs').dollars > part(off, 'CloudWatch Logs').dollars,
      'the trace id in every record',
    );
  });

  it('Lambda samples 1 invocation a second and 5 % of the rest', () => {
    assert.equal(xraySampledShare(0), 0);
    assert.equal(xraySampledShare(0.5), 1);
    assert.ok(Math.abs(xraySampledShare(3) - 1.1 / 3) < 1e-12);
    assert.ok(xraySampledShare(1000) < 0.06);
  });

  it('KMS: under one Decrypt an attempt, fewer as the traffic grows against the same data keys', () => {
    const slow = kmsDecryptsPerAttempt(0.001);
    const fast = kmsDecryptsPerAttempt(100);
    assert.ok(slow <= 1 && slow > fast && fast > 0);
    assert.equal(kmsDecryptsPerAttempt(0), 0);
    // At 100 a second each of the 2 containers needs each of the 12 rings' keys once an hour: 24 of 360,000.
    assert.ok(Math.abs(fast - (TRAFFIC.senderContainers * TRAFFIC.ringsInUse) / (100 * 3600)) < 1e-6);
  });

  it('KMS: the keyring needs a Decrypt per ring, where a key per subscription needed one per subscription', () => {
    const rate = 4;
    const ring = kmsDecryptsPerAttempt(rate);
    const perSubscription = kmsDecryptsPerAttempt(rate, TRAFFIC.subscriptions);
    assert.ok(perSubscription > 0.1, `a key per subscription: ${perSubscription}`);
    assert.ok(ring < 0.005, `the keyring: ${ring}`);
  });

  it('the lean access log record is shorter than the standard one, and an EMF document is a few hundred bytes', () => {
    assert.ok(accessLogRecordBytes('lean') < accessLogRecordBytes('standard'));
    assert.ok(emfDocumentBytes() > 200 && emfDocumentBytes() < 600);
  });

  it('spreads the scheduled runs over the stated traffic; the archiver charges dead letters, not delivered rows (TTL)', () => {
    const delivered = allInPerMillion({
      scenario: scenario('fo1-sqs'),
      p: P,
      logs: LOGS,
      cpuMs: 0,
      background: BACKGROUND,
    });
    assert.equal(part(delivered, 'Archiver').dollars, 0);
    assert.match(part(delivered, 'Archiver').how, /TTL/);
    const dead = allInPerMillion({
      scenario: scenario('dlq-sqs', { finalStatus: 400 }),
      p: P,
      logs: LOGS,
      cpuMs: 0,
      background: BACKGROUND,
    });
    assert.ok(
      part(dead, 'Archiver').dollars >=
        PRICES.dynamodbWriteRequestUnit * 1e6 + 2 * PRICES.dynamodbReadRequestUnit * 1e6,
    );
    // Five attempts in the attempts table (the scenario's own rows say so): each adds its measured share.
    const attempts = {
      table: 'attempts' as const,
      rowsPerEvent: 5,
      bytesPerRow: 400,
      keptFor: { days: 121, rule: '' },
    };
    const logged = allInPerMillion({
      scenario: scenario('dlq-sqs', { finalStatus: 400 }),
      p: P,
      logs: LOGS,
      cpuMs: 0,
      background: BACKGROUND,
      storage: {
        parts: [{ ...attempts, gbMonthsPerMillionEvents: 0, dollarsPerMillionEvents: 0 }],
        dollarsPerMillionEvents: 0,
      },
    });
    const extra = part(logged, 'Archiver').dollars - part(dead, 'Archiver').dollars;
    assert.ok(Math.abs(extra - 5 * 0.5 * PRICES.dynamodbReadRequestUnit * 1e6) < 1e-9, `${extra}`);
    assert.match(
      part(logged, 'Archiver').how,
      /5\.00 attempts a row in the attempts table, each 0\.50 RRU and 0\.00 WRU more/,
    );
    assert.ok(part(delivered, 'Scheduled runs').dollars > 0);
    assert.equal(part(delivered, 'Sweeper manifest checks').dollars, PRICES.dynamodbReadRequestUnit * 1e6);
  });

  it('static egress is its hours spread over the traffic plus the bytes: not in the total', () => {
    const nat = staticEgressPerMillion(1);
    const hours = (2 * PRICES.natGatewayHour * (365 / 12) * 24 * 1e6) / TRAFFIC.deliveriesPerMonth;
    assert.ok(nat.dollars > hours && nat.dollars < hours + 1);
  });

  it('the report checks each scenario with a target against the all-in figure', () => {
    const cheap = perDelivery(usage({}), {}, 100, 0);
    const md = renderAllIn(
      allInRows(
        [
          { scenario: scenario('retry-sqs'), p: cheap, logs: { lines: 0, bytes: 0 }, cpuMs: 0 },
          { scenario: scenario('fo1-sqs'), p: P, logs: LOGS, cpuMs: 0 },
        ],
        BACKGROUND,
        () => undefined,
      ),
    );
    assert.match(md, new RegExp(`\\| retry-sqs \\|.*\\| ≤ \\$${ALL_IN_TARGETS['retry-sqs']!.toFixed(2)} \\| met \\|`));
    // 2 WRU a delivery alone is $1.25; the archive and the rest take it past $1.60.
    assert.match(md, /\| fo1-sqs \|.*\| \*\*not met\*\* \|/);
  });
});

describe('background runs', () => {
  it('per archived delivery: DynamoDB units, S3 PUTs apart from the other requests, and object bytes', () => {
    const a = archivalPerDelivery(
      usage(
        {
          'DynamoDB Query hookline-deliveries': call({ count: 2, readUnits: 10 }),
          'DynamoDB DeleteItem hookline-deliveries': call({ count: 10, writeUnits: 10 }),
          'S3 PutObject hookline-archive': call({ count: 1 }),
          'S3 GetObject hookline-archive': call({ count: 1 }),
        },
        800,
      ),
      10,
    );
    assert.deepEqual(a, {
      deliveries: 10,
      writeUnits: 1,
      readUnits: 1,
      s3Puts: 0.1,
      s3OtherRequests: 0.1,
      s3Bytes: 80,
    });
  });
});

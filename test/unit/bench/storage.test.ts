import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import {
  billedBytes,
  DAYS_PER_MONTH,
  GB,
  deliveredKeptFor,
  eventKeptFor,
  keptParts,
  storagePerMillionEvents,
} from '../../../scripts/bench/storage.ts';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);
const policy = { ...DEFAULT_RETENTION, deliveredDays: 30, deadLetterDays: 90, ttlSafetyMarginDays: 30 };

describe('storage arithmetic', () => {
  it('bytes × 10⁶ / 2³⁰ × days / days per month × $0.25 per GB-month', () => {
    const cost = storagePerMillionEvents([
      {
        table: 'events',
        rowsPerEvent: 1,
        bytesPerRow: GB / 1e6,
        keptFor: { days: DAYS_PER_MONTH * 2, rule: 'two months' },
      },
    ]);
    close(cost.parts[0]!.gbMonthsPerMillionEvents, 2);
    close(cost.dollarsPerMillionEvents, 0.5);
  });

  it('adds the parts, each with its own rows per event and days', () => {
    const cost = storagePerMillionEvents([
      { table: 'events', rowsPerEvent: 1, bytesPerRow: (0.5 * GB) / 1e6, keptFor: { days: DAYS_PER_MONTH, rule: '' } },
      {
        table: 'deliveries',
        rowsPerEvent: 10,
        bytesPerRow: (0.3 * GB) / 1e6,
        keptFor: { days: DAYS_PER_MONTH / 2, rule: '' },
      },
    ]);
    close(cost.dollarsPerMillionEvents, 0.5 * 0.25 + 1.5 * 0.25);
  });

  it('keeps an event for the default deadline, the delivered retention and a day: 34 days, the margin only where delivered rows are archived', () => {
    assert.equal(eventKeptFor(policy).days, 3 + 30 + 1);
    assert.match(eventKeptFor(policy).rule, /default deadline 3 days \+ deliveredDays 30 \+ 1 day of slack/);
    assert.equal(eventKeptFor({ ...policy, archiveDelivered: 1 }).days, 3 + 30 + 30);
    assert.equal(eventKeptFor(policy, 14 * 86_400).days, 14 + 30 + 1);
  });

  it('keeps delivered rows for deliveredDays', () => {
    assert.equal(deliveredKeptFor(policy).days, 30);
  });

  it('bills a row at its size + 100 B, plus each index entry it sits in at its keys + 100 B', () => {
    const item = {
      subscriptionShard: { S: 'sub_1#3' },
      listKey: { S: '2026#dlv_1' },
      id: { S: 'dlv_1' },
      activeShard: { S: 's1' },
      nextAttemptAt: { S: '2026' },
      state: { S: 'pending' },
    };
    // Item: subscriptionShard 17+7, listKey 7+10, id 2+5, activeShard 11+2, nextAttemptAt 13+4, state 5+7 = 90.
    // Its `active` entry (keys only): the table's keys and the index's, 24 + 17 + 13 + 17 = 71.
    assert.equal(billedBytes('deliveries', item), 90 + 100 + 71 + 100);
    const delivered = {
      subscriptionShard: item.subscriptionShard,
      listKey: item.listKey,
      id: item.id,
      state: { S: 'delivered' },
    };
    assert.equal(billedBytes('deliveries', delivered), 24 + 17 + 7 + 14 + 100, 'a delivered row sits in no index');
    assert.equal(billedBytes('events', { id: { S: 'evt_1' } }), 7 + 100);
  });

  it("turns a run's kept rows into parts per event, leaving subscriptions out", () => {
    const rows = (n: number) => ({
      kept: new Map(Array.from({ length: n }, (_, i) => [String(i), { id: { S: `x${i}` } }])),
    });
    const parts = keptParts({ events: rows(2), deliveries: rows(4), subscriptions: rows(1) }, 2);
    assert.deepEqual(
      parts.map((p) => [p.table, p.rowsPerEvent]),
      [
        ['events', 1],
        ['deliveries', 2],
      ],
    );
    assert.equal(parts[0]!.bytesPerRow, 2 + 2 + 100);
  });

  it("keeps each row by its own rule: a dead letter 90 days, an attempt by its TTL (a dead letter's too), an event by its TTL", () => {
    const day = 86_400;
    const at = '2026-01-01T00:00:00.000Z';
    const epoch = Date.parse(at) / 1000;
    const keyed = (items: Record<string, AttributeValue>[]) => ({
      kept: new Map(items.map((item, i) => [String(i), item])),
    });
    const parts = keptParts(
      {
        deliveries: keyed([
          { id: { S: 'dlv_ok' }, state: { S: 'delivered' } },
          { id: { S: 'dlv_dead' }, state: { S: 'failed' } },
        ]),
        attempts: keyed([
          { deliveryId: { S: 'dlv_ok' }, startedAt: { S: at }, expiresAt: { N: String(epoch + 210 * day) } },
          { deliveryId: { S: 'dlv_dead' }, startedAt: { S: at }, expiresAt: { N: String(epoch + 121 * day) } },
        ]),
        events: keyed([
          { id: { S: 'evt_kept' }, createdAt: { S: at }, expiresAt: { N: String(epoch + 120 * day) } },
          { id: { S: 'evt_short' }, createdAt: { S: at }, expiresAt: { N: String(epoch + 31 * day) } },
        ]),
      },
      2,
      policy,
    );
    const days = Object.fromEntries(parts.map((p) => [p.table, p.keptFor.days]));
    // Rows of one table differ a few bytes; the mean is byte-weighted, so compare with a tolerance.
    const near = (actual: number, expected: number) =>
      assert.ok(Math.abs(actual - expected) < 1, `${actual} ≉ ${expected}`);
    near(days.deliveries!, (30 + 90) / 2);
    // The archiver leaves a dead letter's log to its TTL, as a delivered row's.
    near(days.attempts!, (210 + 121) / 2);
    near(days.events!, (120 + 34) / 2);
    assert.match(parts.find((p) => p.table === 'attempts')!.keptFor.rule, /its own TTL/);
  });
});

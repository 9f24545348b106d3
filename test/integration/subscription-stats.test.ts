import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Two tries a second apart: a 500 endpoint expires its delivery in about a second, not after the 30 s deadline. */
const TWO_TRIES = { ...FAST_RETRY_POLICY, maxAttempts: 2 };

/** Nearest rank, as the API defines p50 and p95. */
const nearestRank = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1];
const p95 = (values: number[]) => nearestRank(values, 95);

interface Bucket {
  from: string;
  to: string;
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  latencyMs: { p50: number | null; p95: number | null };
  deadLettered: number;
  sampled: boolean;
}

/** The series covers the window in `count` buckets of `minutes`, oldest first, each starting where the last ended. */
function assertCovers(
  stats: { window: { from: string; to: string }; series: { bucketMinutes: number; buckets: Bucket[] } },
  minutes: number,
  count: number,
) {
  const { bucketMinutes, buckets } = stats.series;
  assert.deepEqual([bucketMinutes, buckets.length], [minutes, count]);
  assert.equal(buckets[0]!.from, stats.window.from);
  assert.equal(buckets.at(-1)!.to, stats.window.to);
  for (const [i, b] of buckets.entries()) {
    assert.equal(Date.parse(b.to) - Date.parse(b.from), minutes * 60_000, `bucket ${i}'s length`);
    if (i > 0) assert.equal(b.from, buckets[i - 1]!.to);
  }
}

describe('GET /v1/subscriptions/{id}/stats on the local runtime', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  it('reports delivered, failed (400) and expired (500) deliveries, their latency, the last failure and the failing run; other tenants get 404', async () => {
    const path = '/stats';
    stack.receiver.script(path, [], { status: 200 });
    const sub = await stack.subscribe(path, { eventTypes: ['stats.test'], tenantId: 'acme', retryPolicy: TWO_TRIES });
    // One at a time, so each answer script meets the delivery it is meant for.
    const settle = async (states: readonly string[]) => {
      const [id] = (await stack.publish('stats.test', {}, undefined, { tenantId: 'acme' })).deliveryIds;
      return stack.waitForState(id!, states);
    };
    const delivered = [await settle(['delivered']), await settle(['delivered'])];
    stack.receiver.script(path, [{ status: 400 }]);
    const failed = await settle(['failed']);
    stack.receiver.script(path, [{ status: 500 }, { status: 500 }]);
    const expired = await settle(['expired']);

    const logs = [...delivered, failed, expired].flatMap(
      (d) => d.attemptLog as Array<{ startedAt: string; durationMs: number; status: number }>,
    );
    assert.equal(logs.length, 5, 'one attempt each, two for the expired one');
    const durations = logs.map((a) => a.durationMs);
    // The streak is written just after the outcome the delivery shows.
    const subscription = await waitFor('the dead-letter streak of 2', async () => {
      const body = (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body;
      return body.deadLetterStreak === 2 ? body : undefined;
    });

    const acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
    const res = await acme.get(`/v1/subscriptions/${sub.id}/stats`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = res.body;
    assert.equal(s.subscriptionId, sub.id);
    assert.equal(s.window.hours, 24);
    assert.equal(Date.parse(s.window.to) - Date.parse(s.window.from), 24 * 3_600_000);
    assert.ok(Math.abs(Date.parse(s.window.to) - Date.now()) < 60_000, `window ends now: ${s.window.to}`);
    assert.deepEqual([s.state, s.stateReason, s.stateChangedAt], ['active', null, subscription.stateChangedAt]);
    assert.deepEqual(s.finished, { delivered: 2, failed: 1, expired: 1, total: 4 });
    assert.deepEqual(s.open, { pending: 0, inFlight: 0 });
    assert.equal(s.successRate, 0.5);
    assert.deepEqual(s.latencyMs, {
      attempts: 5,
      average: Math.round(durations.reduce((a, b) => a + b, 0) / durations.length),
      p95: p95(durations),
    });
    const lastTry = expired.attemptLog[1];
    assert.deepEqual(s.lastFailure, { at: lastTry.startedAt, deliveryId: expired.id, status: 500, error: null });
    assert.equal(
      s.failingSince,
      failed.attemptLog[0].startedAt,
      'the 400 was the first failure after the last success',
    );
    assert.equal(s.deadLetteringSince, subscription.deadLetteringSince);
    assert.ok(s.deadLetteringSince, 'two dead letters in a row make a streak');
    assert.equal(s.deadLetterStreak, 2);
    assert.deepEqual([s.sampled, s.examined, s.attemptsExamined], [false, 4, 5]);
    assert.deepEqual(s.limits, { deliveries: 1000, attemptsPerDelivery: 50 });
    // By the hour: everything happened within the last hour, so in the newest bucket; the rest are empty, with null rates.
    assertCovers(s, 60, 24);
    const newest = {
      attempts: 5,
      succeeded: 2,
      failed: 3,
      successRate: 0.4,
      latencyMs: { p50: nearestRank(durations, 50), p95: p95(durations) },
      deadLettered: 2,
      sampled: false,
    };
    const { from: _from, to: _to, ...lastHour } = s.series.buckets.at(-1) as Bucket;
    assert.deepEqual(lastHour, newest);
    for (const b of s.series.buckets.slice(0, -1) as Bucket[])
      assert.deepEqual(
        [b.attempts, b.successRate, b.latencyMs, b.deadLettered],
        [0, null, { p50: null, p95: null }, 0],
      );

    const admin = await stack.api.get(`/v1/subscriptions/${sub.id}/stats?windowHours=168`);
    assert.equal(admin.status, 200);
    assert.deepEqual(
      [admin.body.window.hours, admin.body.finished, admin.body.latencyMs],
      [168, s.finished, s.latencyMs],
    );
    // A week in six-hour buckets, the same attempts in its newest.
    assertCovers(admin.body, 360, 28);
    const { from: _weekFrom, to: _weekTo, ...lastSixHours } = admin.body.series.buckets.at(-1) as Bucket;
    assert.deepEqual(lastSixHours, newest);
    assert.equal(
      (admin.body.series.buckets as Bucket[]).reduce((n, b) => n + b.attempts, 0),
      5,
      'every attempt in exactly one bucket',
    );

    const globex = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/globex/keys')).body.key);
    const hidden = await globex.get(`/v1/subscriptions/${sub.id}/stats`);
    const unknown = await globex.get('/v1/subscriptions/sub_doesnotexist/stats');
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.error.code, 'not_found');
    assert.equal(
      hidden.body.error.message,
      unknown.body.error.message.replace('sub_doesnotexist', sub.id),
      'looks exactly like an unknown id',
    );
  });

  it('answers a subscription with nothing sent with zero counts and null figures', async () => {
    const sub = await stack.subscribe('/quiet', { eventTypes: ['quiet.test'] });
    const res = await stack.api.get(`/v1/subscriptions/${sub.id}/stats?windowHours=1`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.finished, { delivered: 0, failed: 0, expired: 0, total: 0 });
    assert.deepEqual(
      [res.body.successRate, res.body.latencyMs, res.body.lastFailure, res.body.failingSince],
      [null, { attempts: 0, average: null, p95: null }, null, null],
    );
    assert.deepEqual([res.body.sampled, res.body.examined], [false, 0]);
    // One hour in two-minute buckets, every one empty: null rates, never 0 %.
    assertCovers(res.body, 2, 30);
    assert.ok((res.body.series.buckets as Bucket[]).every((b) => b.attempts === 0 && b.successRate === null));
  });

  it('refuses a bad windowHours with a 400 naming it', async () => {
    const sub = await stack.subscribe('/bad-window', { eventTypes: ['bad.window'] });
    for (const value of ['0', '169', '2.5', 'day']) {
      const res = await stack.api.get(`/v1/subscriptions/${sub.id}/stats?windowHours=${value}`);
      assert.equal(res.status, 400, value);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, /^windowHours: must be a whole number of hours from 1 to 168/);
    }
  });
});

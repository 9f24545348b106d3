import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STATE, type DeliveryState } from '#domain/states.ts';
import {
  attemptSucceeded,
  percentile,
  summarizeHealth,
  type AttemptFacts,
  type DeliveryFacts,
  type HealthFigures,
} from '#domain/subscription-health.ts';

const TO = Date.parse('2025-03-02T12:00:00.000Z');
const FROM = TO - 24 * 3_600_000;
/** An instant `s` seconds after the window's start (negative: before it). */
const at = (s: number) => new Date(FROM + s * 1000).toISOString();
const END = 24 * 3600;

const d = (state: DeliveryState, updatedS: number): DeliveryFacts => ({ state, updatedAt: at(updatedS) });
const ok = (startedS: number, durationMs: number, deliveryId = 'dlv_ok'): AttemptFacts => ({
  deliveryId,
  startedAt: at(startedS),
  durationMs,
  status: 200,
});
const bad = (
  startedS: number,
  durationMs: number,
  failure: { status: number } | { error: string },
  deliveryId = 'dlv_bad',
): AttemptFacts => ({
  deliveryId,
  startedAt: at(startedS),
  durationMs,
  ...failure,
});

const NOTHING = {
  finished: { delivered: 0, failed: 0, expired: 0, total: 0 },
  open: { pending: 0, inFlight: 0 },
  latency: { attempts: 0 },
};

interface Case {
  readonly name: string;
  readonly deliveries?: readonly DeliveryFacts[];
  readonly attempts?: readonly AttemptFacts[];
  readonly expected: HealthFigures;
}

const CASES: readonly Case[] = [
  { name: 'empty: every count 0, no rate, no latency, no failure', expected: NOTHING },
  {
    name: 'all delivered: rate 1, no failure, not failing',
    deliveries: [d(STATE.delivered, 10), d(STATE.delivered, 20), d(STATE.delivered, 30)],
    attempts: [ok(10, 40), ok(20, 60), ok(30, 20)],
    expected: {
      ...NOTHING,
      finished: { delivered: 3, failed: 0, expired: 0, total: 3 },
      successRate: 1,
      latency: { attempts: 3, averageMs: 40, p95Ms: 60 },
    },
  },
  {
    name: 'mixed: each outcome counted, live ones counted whatever their age, rate over finished only',
    deliveries: [
      d(STATE.delivered, 10),
      d(STATE.delivered, 20),
      d(STATE.failed, 30),
      d(STATE.expired, 40),
      d(STATE.pending, -999),
      d(STATE.inFlight, 50),
    ],
    attempts: [
      ok(10, 10),
      ok(20, 10),
      bad(30, 30, { status: 400 }),
      bad(35, 50, { error: 'timeout after 2000 ms' }, 'dlv_exp'),
    ],
    expected: {
      finished: { delivered: 2, failed: 1, expired: 1, total: 4 },
      open: { pending: 1, inFlight: 1 },
      successRate: 0.5,
      latency: { attempts: 4, averageMs: 25, p95Ms: 50 },
      lastFailure: { at: at(35), deliveryId: 'dlv_exp', error: 'timeout after 2000 ms' },
      failingSince: at(30),
    },
  },
  {
    name: 'a success after failures ends the run: not failing, the last failure stays',
    deliveries: [d(STATE.failed, 10), d(STATE.delivered, 20)],
    attempts: [bad(10, 5, { status: 500 }), bad(11, 5, { status: 400 }), ok(20, 5)],
    expected: {
      ...NOTHING,
      finished: { delivered: 1, failed: 1, expired: 0, total: 2 },
      successRate: 0.5,
      latency: { attempts: 3, averageMs: 5, p95Ms: 5 },
      lastFailure: { at: at(11), deliveryId: 'dlv_bad', status: 400 },
    },
  },
  {
    name: 'failing since the first failure after the last success, in start order whatever the input order',
    attempts: [bad(300, 1, { status: 503 }), ok(100, 1), bad(50, 1, { status: 500 }), bad(200, 1, { status: 429 })],
    expected: {
      ...NOTHING,
      latency: { attempts: 4, averageMs: 1, p95Ms: 1 },
      lastFailure: { at: at(300), deliveryId: 'dlv_bad', status: 503 },
      failingSince: at(200),
    },
  },
  {
    name: 'no success in the window: failing since its first failure; 1xx/3xx are failures (never followed)',
    attempts: [bad(5, 1, { status: 302 }), bad(6, 1, { status: 101 })],
    expected: {
      ...NOTHING,
      latency: { attempts: 2, averageMs: 1, p95Ms: 1 },
      lastFailure: { at: at(6), deliveryId: 'dlv_bad', status: 101 },
      failingSince: at(5),
    },
  },
  {
    name: 'window edges: both ends count, a millisecond outside does not (deliveries by updatedAt, attempts by startedAt)',
    deliveries: [
      d(STATE.delivered, 0),
      d(STATE.failed, END),
      d(STATE.delivered, -0.001),
      d(STATE.expired, END + 0.001),
    ],
    attempts: [ok(0, 10), bad(END, 30, { status: 500 }), ok(-0.001, 999), bad(END + 0.001, 999, { status: 500 })],
    expected: {
      ...NOTHING,
      finished: { delivered: 1, failed: 1, expired: 0, total: 2 },
      successRate: 0.5,
      latency: { attempts: 2, averageMs: 20, p95Ms: 30 },
      lastFailure: { at: at(END), deliveryId: 'dlv_bad', status: 500 },
      failingSince: at(END),
    },
  },
  {
    name: 'a rate rounds to 4 decimals',
    deliveries: [d(STATE.delivered, 1), d(STATE.failed, 2), d(STATE.failed, 3)],
    expected: { ...NOTHING, finished: { delivered: 1, failed: 2, expired: 0, total: 3 }, successRate: 0.3333 },
  },
  {
    name: 'only live deliveries: nothing finished, so no rate (not 0)',
    deliveries: [d(STATE.pending, 1), d(STATE.pending, 2)],
    expected: { ...NOTHING, open: { pending: 2, inFlight: 0 } },
  },
];

describe('summarizeHealth', () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(
        summarizeHealth({ fromMs: FROM, toMs: TO, deliveries: c.deliveries ?? [], attempts: c.attempts ?? [] }),
        c.expected,
      );
    });
  }

  it('p95 of 1..100 ms is 95 and the average 51 (50.5 rounded): 100 attempts', () => {
    const attempts = Array.from({ length: 100 }, (_, i) => ok(i, 100 - i));
    const { latency } = summarizeHealth({ fromMs: FROM, toMs: TO, deliveries: [], attempts });
    assert.deepEqual(latency, { attempts: 100, averageMs: 51, p95Ms: 95 });
  });
});

describe('percentile (nearest rank)', () => {
  const cases: ReadonlyArray<[readonly number[], number, number | undefined]> = [
    [[], 95, undefined],
    [[7], 95, 7],
    [[1, 2], 95, 2],
    [[1, 2], 50, 1],
    [Array.from({ length: 20 }, (_, i) => i + 1), 95, 19],
    [Array.from({ length: 21 }, (_, i) => i + 1), 95, 20],
    [[1, 2, 3, 4], 100, 4],
  ];
  for (const [sorted, p, expected] of cases) {
    it(`p${p} of ${sorted.length} values is ${expected}`, () => assert.equal(percentile(sorted, p), expected));
  }
});

describe("attemptSucceeded (the sender's rule)", () => {
  const cases: ReadonlyArray<[Partial<AttemptFacts>, boolean]> = [
    [{ status: 200 }, true],
    [{ status: 204 }, true],
    [{ status: 299 }, true],
    [{ status: 302 }, false],
    [{ status: 410 }, false],
    [{ status: 500 }, false],
    [{ error: 'connection refused' }, false],
  ];
  for (const [attempt, expected] of cases) {
    it(`${JSON.stringify(attempt)} → ${expected}`, () => assert.equal(attemptSucceeded(attempt), expected));
  }
});

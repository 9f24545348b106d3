import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { madeBeforeRetryNow, retriedNow, RETRY_NOW_LEAD_SECONDS, retryNowVerdict } from '#domain/retry-now.ts';
import type { DeliveryState } from '#domain/states.ts';
import type { Subscription, SubscriptionState } from '#domain/types.ts';
import { aDelivery, aSubscription } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const at = (seconds: number) => new Date(NOW_MS + seconds * 1000).toISOString();
const sub = (state: SubscriptionState, stateReason?: string): Subscription =>
  aSubscription({ id: 'sub_1', state, ...(stateReason ? { stateReason } : {}) });

describe('retryNowVerdict: what Retry now makes of a delivery', () => {
  // state, attempt number, due in seconds, subscription → verdict, spelt out rather than derived from the code.
  const cases: ReadonlyArray<
    readonly [string, DeliveryState, number, number, Subscription | undefined, ReturnType<typeof retryNowVerdict>]
  > = [
    ['a retry due in ten minutes', 'pending', 2, 600, sub('active'), { kind: 'retry' }],
    ['a retry due just past the lead', 'pending', 1, RETRY_NOW_LEAD_SECONDS, sub('active'), { kind: 'retry' }],
    [
      'a retry due just inside the lead',
      'pending',
      1,
      RETRY_NOW_LEAD_SECONDS - 1,
      sub('active'),
      { kind: 'due', at: at(RETRY_NOW_LEAD_SECONDS - 1) },
    ],
    ['a retry due already', 'pending', 1, -30, sub('active'), { kind: 'due', at: at(-30) }],
    ['a delivery not attempted yet', 'pending', 0, 600, sub('active'), { kind: 'not_attempted' }],
    ['delivered', 'delivered', 1, 0, sub('active'), { kind: 'finished', state: 'delivered' }],
    ['failed', 'failed', 1, 0, sub('active'), { kind: 'finished', state: 'failed' }],
    ['expired, its subscription deleted', 'expired', 3, 0, sub('deleted'), { kind: 'finished', state: 'expired' }],
    ["an earlier version's claim", 'in_flight', 2, 600, sub('active'), { kind: 'claimed' }],
    ['of a paused subscription', 'pending', 2, 3600, sub('paused'), { kind: 'paused' }],
    ['paused, not attempted yet', 'pending', 0, 3600, sub('paused'), { kind: 'paused' }],
    [
      'of a disabled subscription',
      'pending',
      2,
      600,
      sub('disabled', 'HTTP 410 Gone'),
      { kind: 'ended', reason: 'subscription disabled: HTTP 410 Gone' },
    ],
    ['of a deleted subscription', 'pending', 2, 600, sub('deleted'), { kind: 'ended', reason: 'subscription deleted' }],
    [
      'of a vanished subscription',
      'pending',
      2,
      600,
      undefined,
      { kind: 'ended', reason: 'subscription no longer exists' },
    ],
  ];
  for (const [what, state, attemptSeq, dueIn, subscription, verdict] of cases) {
    it(`${what}: ${verdict.kind}`, () => {
      const row = aDelivery({ id: 'dlv_1', state, attemptSeq, attempts: attemptSeq, nextAttemptAt: at(dueIn) });
      assert.deepEqual(retryNowVerdict(row, subscription, NOW_MS), verdict);
    });
  }
});

describe('retriedNow: the row Retry now writes', () => {
  it('due now, attempts 0 and a deadline from now, as a replay; its attempt number and last attempt stay', () => {
    const lastAttempt = { seq: 3, attempt: 3, startedAt: at(-60), durationMs: 12, status: 503 };
    const row = aDelivery({
      id: 'dlv_1',
      attempts: 3,
      attemptSeq: 3,
      nextAttemptAt: at(3600),
      giveUpAt: at(7200),
      lastStatus: 503,
      lastAttempt,
    });

    assert.deepEqual(retriedNow(row, NOW_MS, 86_400), {
      ...row,
      attempts: 0,
      nextAttemptAt: NOW,
      giveUpAt: at(86_400),
      updatedAt: NOW,
    });
  });
});

describe('madeBeforeRetryNow: which retry messages read their row first', () => {
  const marked = { retriedNowAt: NOW };
  const cases: ReadonlyArray<readonly [string, { retriedNowAt?: string } | undefined, string | undefined, boolean]> = [
    ['no Retry now on the subscription', {}, at(-60), false],
    ['the subscription is unknown', undefined, at(-60), false],
    ['made by an attempt before the mark', marked, at(-60), true],
    ['made by an attempt at the mark', marked, NOW, true],
    ['made by an attempt after the mark (the hurried one, or later)', marked, at(1), false],
    ['carrying no attempt (an earlier version)', marked, undefined, true],
  ];
  for (const [what, subscription, startedAt, reads] of cases) {
    it(`${what}: ${reads ? 'reads' : 'goes without a read'}`, () => {
      assert.equal(madeBeforeRetryNow(subscription, startedAt ? { startedAt } : undefined), reads);
    });
  }
});

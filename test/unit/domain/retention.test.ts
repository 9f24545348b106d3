import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RETRY_POLICY, MAX_DEADLINE_SECONDS } from '#domain/retry-policy.ts';
import {
  attemptTtlFor,
  deadLetterEventTtl,
  DEFAULT_RETENTION,
  EVENT_TTL_SLACK_DAYS,
  eventTtlFor,
  ttlFor,
} from '#domain/retention.ts';

const DAY_S = 86_400;
const T0 = Date.parse('2024-05-01T12:00:00.000Z');

describe('event TTLs', () => {
  it('a new event is kept from its last deadline for the delivered retention and a day: 34 days with the default deadline, not 60', () => {
    const lastGiveUpAt = T0 + DEFAULT_RETRY_POLICY.deadlineSeconds * 1000;
    assert.equal(eventTtlFor(lastGiveUpAt), T0 / 1000 + (3 + 30 + 1) * DAY_S);
    assert.equal(
      eventTtlFor(lastGiveUpAt, DEFAULT_RETENTION),
      lastGiveUpAt / 1000 + (DEFAULT_RETENTION.deliveredDays + EVENT_TTL_SLACK_DAYS) * DAY_S,
    );
    assert.equal(
      eventTtlFor(T0, { deliveredDays: 0, deadLetterDays: 0, ttlSafetyMarginDays: 5, archiveDelivered: 0 }),
      T0 / 1000 + DAY_S,
      'no margin when nothing archives delivered rows',
    );
  });

  it('keeps the margin where the archiver moves delivered rows: it reads the body after their retention', () => {
    const archived = { ...DEFAULT_RETENTION, archiveDelivered: 1 };
    assert.equal(eventTtlFor(T0, archived), T0 / 1000 + (30 + 30) * DAY_S);
  });

  it('is whole epoch seconds, rounded down, for fractional days', () => {
    const ttl = eventTtlFor(T0 + 999, {
      deliveredDays: 0.5,
      deadLetterDays: 1,
      ttlSafetyMarginDays: 1,
      archiveDelivered: 0,
    });
    assert.ok(Number.isInteger(ttl));
    assert.equal(ttl, T0 / 1000 + 1.5 * DAY_S);
  });

  it("outlives the row of a delivery delivered at its deadline, whatever the deadline: by the slack, or as long as an archived row's net", () => {
    for (const deadlineSeconds of [60, DEFAULT_RETRY_POLICY.deadlineSeconds, MAX_DEADLINE_SECONDS]) {
      const deliveredAt = T0 + deadlineSeconds * 1000;
      const rowGoes = ttlFor('delivered', deliveredAt)!;
      assert.equal(eventTtlFor(deliveredAt) - rowGoes, EVENT_TTL_SLACK_DAYS * DAY_S, `deadline ${deadlineSeconds} s`);
      const archived = { ...DEFAULT_RETENTION, archiveDelivered: 1 };
      assert.equal(eventTtlFor(deliveredAt, archived), ttlFor('delivered', deliveredAt, archived));
    }
  });

  it('a delivered row nobody archives goes by TTL at the end of its retention; an archived one keeps the margin as a net', () => {
    assert.equal(ttlFor('delivered', T0), T0 / 1000 + DEFAULT_RETENTION.deliveredDays * DAY_S);
    assert.equal(DEFAULT_RETENTION.archiveDelivered, 0);
    const archived = { ...DEFAULT_RETENTION, archiveDelivered: 1 };
    assert.equal(ttlFor('delivered', T0, archived), T0 / 1000 + (30 + 30) * DAY_S);
    // Dead letters are always archived: their net is there either way.
    assert.equal(ttlFor('failed', T0), ttlFor('failed', T0, archived));
    assert.equal(ttlFor('pending', T0), undefined);
  });

  it('a dead letter keeps its event exactly as long as its own row', () => {
    const deadAt = T0 + 3 * DAY_S * 1000;
    assert.equal(deadLetterEventTtl(deadAt), deadAt / 1000 + 120 * DAY_S);
    for (const state of ['failed', 'expired'] as const) assert.equal(deadLetterEventTtl(deadAt), ttlFor(state, deadAt));
    const policy = { deliveredDays: 1, deadLetterDays: 2.5, ttlSafetyMarginDays: 3, archiveDelivered: 0 };
    assert.equal(deadLetterEventTtl(deadAt, policy), ttlFor('failed', deadAt, policy));
  });
});

describe('attempt TTLs', () => {
  it('an attempt is kept from the deadline of its run as long as a dead letter of that run, and a day: 121 days by default, not 210 from each attempt', () => {
    const giveUpAt = T0 + DEFAULT_RETRY_POLICY.deadlineSeconds * 1000;
    assert.equal(attemptTtlFor(giveUpAt), giveUpAt / 1000 + (90 + 30 + 1) * DAY_S);
  });

  it('outlives every row its run can leave, whichever outcome and whenever it comes by the deadline', () => {
    const policies = [
      DEFAULT_RETENTION,
      { ...DEFAULT_RETENTION, archiveDelivered: 1 },
      // Delivered rows kept longer than dead letters: the attempts follow the longer.
      { deliveredDays: 365, deadLetterDays: 7, ttlSafetyMarginDays: 2, archiveDelivered: 0 },
      { deliveredDays: 365, deadLetterDays: 7, ttlSafetyMarginDays: 2, archiveDelivered: 1 },
    ];
    for (const policy of policies) {
      const giveUpAt = T0 + 3 * DAY_S * 1000;
      const ttl = attemptTtlFor(giveUpAt, policy);
      for (const state of ['delivered', 'failed', 'expired'] as const) {
        for (const at of [T0, giveUpAt]) {
          const rowGoes = ttlFor(state, at, policy)!;
          assert.ok(ttl - rowGoes >= EVENT_TTL_SLACK_DAYS * DAY_S, `${state} at ${at}, ${JSON.stringify(policy)}`);
        }
      }
      // And no longer than the longer-kept outcome needs, with the slack.
      const longest = Math.max(ttlFor('failed', giveUpAt, policy)!, ttlFor('delivered', giveUpAt, policy)!);
      assert.equal(ttl, longest + EVENT_TTL_SLACK_DAYS * DAY_S);
    }
  });
});

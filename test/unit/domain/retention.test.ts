import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DEADLINE_SECONDS } from '#domain/retry-policy.ts';
import { deadLetterEventTtl, DEFAULT_RETENTION, eventTtlFor, ttlFor } from '#domain/retention.ts';

const DAY_S = 86_400;
const T0 = Date.parse('2024-05-01T12:00:00.000Z');

describe('event TTLs', () => {
  it('a new event is kept for the delivered retention plus the margin: 60 days by default, not 210', () => {
    assert.equal(eventTtlFor(T0), T0 / 1000 + 60 * DAY_S);
    assert.equal(
      eventTtlFor(T0, DEFAULT_RETENTION),
      T0 / 1000 + (DEFAULT_RETENTION.deliveredDays + DEFAULT_RETENTION.ttlSafetyMarginDays) * DAY_S,
    );
    assert.equal(
      eventTtlFor(T0, { deliveredDays: 0, deadLetterDays: 0, ttlSafetyMarginDays: 1, archiveDelivered: 0 }),
      T0 / 1000 + DAY_S,
    );
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

  it('outlives the row of a delivery delivered at the end of the longest retry deadline, by the margin less that deadline', () => {
    const deliveredAt = T0 + MAX_DEADLINE_SECONDS * 1000;
    const archivedBy = Math.floor(deliveredAt / 1000) + DEFAULT_RETENTION.deliveredDays * DAY_S;
    assert.ok(
      eventTtlFor(T0) - archivedBy >= 16 * DAY_S - 3600,
      'more than two weeks of net after the archiver should have run',
    );
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

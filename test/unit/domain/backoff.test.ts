import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { baseDelaySeconds, nextDelaySeconds, parseRetryAfter, wholeSecondsToward } from '#domain/backoff.ts';
import { DEFAULT_RETRY_POLICY, RETRY_PRESETS, type RetryPolicy } from '#domain/retry-policy.ts';

const NOW = Date.parse('2025-03-01T12:00:00.000Z');

describe('baseDelaySeconds()', () => {
  const table: ReadonlyArray<readonly [string, RetryPolicy, number, number]> = [
    ['default', DEFAULT_RETRY_POLICY, 0, 10],
    ['default', DEFAULT_RETRY_POLICY, 1, 10],
    ['default', DEFAULT_RETRY_POLICY, 2, 20],
    ['default', DEFAULT_RETRY_POLICY, 3, 40],
    ['default', DEFAULT_RETRY_POLICY, 4, 80],
    ['default', DEFAULT_RETRY_POLICY, 9, 2560],
    ['default', DEFAULT_RETRY_POLICY, 10, 3600],
    ['default', DEFAULT_RETRY_POLICY, 2000, 3600],
    ['preset 30 min', RETRY_PRESETS.tenSecondsToThirtyMinutes, 5, 160],
    ['preset 30 min', RETRY_PRESETS.tenSecondsToThirtyMinutes, 8, 1280],
    ['preset 30 min', RETRY_PRESETS.tenSecondsToThirtyMinutes, 9, 1800],
    ['multiplier 1', { ...DEFAULT_RETRY_POLICY, multiplier: 1 }, 7, 10],
    ['multiplier 1.5', { ...DEFAULT_RETRY_POLICY, multiplier: 1.5 }, 3, 22.5],
  ];
  for (const [name, policy, attempt, expected] of table) {
    it(`${name}, attempt ${attempt}: ${expected}`, () => assert.equal(baseDelaySeconds(policy, attempt), expected));
  }
});

describe('nextDelaySeconds()', () => {
  // [attempt, random, retryAfter, expected], default policy (10 s doubling, max 3600, jitter 0.2)
  const table: ReadonlyArray<readonly [number, number, number | undefined, number]> = [
    [1, 0.5, undefined, 10],
    [1, 0, undefined, 8],
    [1, 0.9999999999, undefined, 12],
    [2, 0, undefined, 16],
    [2, 0.9999999999, undefined, 24],
    [1, 0.5, 120, 120],
    [3, 0.5, 5, 40],
    [1, 0.5, 0, 10],
    [1, 0.5, 1_000_000, 3600],
    [12, 0.9999999999, undefined, 3600],
  ];
  for (const [attempt, random, retryAfter, expected] of table) {
    it(`attempt ${attempt}, random ${random}, Retry-After ${retryAfter ?? '-'}: ${expected}`, () => {
      assert.equal(nextDelaySeconds(DEFAULT_RETRY_POLICY, attempt, random, retryAfter), expected);
    });
  }

  it('returns whole seconds, at least 1, for fractional multipliers and full jitter', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 1, multiplier: 1.3, jitter: 1 };
    for (let attempt = 1; attempt <= 40; attempt++) {
      for (const random of [0, 0.01, 0.2, 0.5, 0.77, 0.9999999]) {
        const delay = nextDelaySeconds(policy, attempt, random);
        assert.ok(Number.isInteger(delay), `${attempt}/${random}: ${delay}`);
        assert.ok(delay >= 1 && delay <= policy.maxDelaySeconds, `${attempt}/${random}: ${delay}`);
      }
    }
  });
});

describe('parseRetryAfter()', () => {
  const at = (offsetMs: number) => new Date(NOW + offsetMs).toUTCString();
  const table: ReadonlyArray<readonly [string, string | undefined, number | undefined]> = [
    ['delta seconds', '120', 120],
    ['zero', '0', 0],
    ['surrounding spaces', '  30 ', 30],
    ['large delta', '86400', 86400],
    ['IMF-fixdate in 2 minutes', at(120_000), 120],
    ['IMF-fixdate in 1 hour', at(3_600_000), 3600],
    ['IMF-fixdate in the past', at(-3_600_000), 0],
    ['IMF-fixdate now', at(0), 0],
    ['IMF-fixdate literal', 'Sat, 01 Mar 2025 12:05:00 GMT', 300],
    ['RFC 850 date', 'Saturday, 01-Mar-25 12:05:00 GMT', 300],
    ['asctime date', 'Sat Mar  1 12:05:00 2025', 300],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['a word', 'soon', undefined],
    ['negative', '-5', undefined],
    ['fraction', '1.5', undefined],
    ['exponent', '1e3', undefined],
    ['with unit', '120s', undefined],
    ['ISO date', '2025-03-01T12:05:00Z', undefined],
    ['garbage with a year in it', 'foo 2030', undefined],
    ['garbage with a far year in it', 'next 2099 maybe', undefined],
    ['garbage with a number', 'abc 12', undefined],
  ];
  for (const [name, value, expected] of table) {
    it(`${name} (${JSON.stringify(value)}) -> ${expected}`, () => assert.equal(parseRetryAfter(value, NOW), expected));
  }

  it('rounds a date that is a fraction of a second away up to whole seconds', () => {
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:05:00 GMT', NOW + 500), 300);
    assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:05:00 GMT', NOW - 500), 301);
  });

  it('reads an asctime date as GMT whatever the local time zone', () => {
    const saved = process.env.TZ;
    try {
      for (const tz of ['Asia/Kolkata', 'America/Los_Angeles', 'UTC']) {
        process.env.TZ = tz;
        assert.equal(parseRetryAfter('Sat Mar  1 12:05:00 2025', NOW), 300, tz);
        assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:05:00 GMT', NOW), 300, tz);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe('wholeSecondsToward()', () => {
  it('is the whole seconds before an instant, so the message is back before it, never after; at least one', () => {
    assert.equal(wholeSecondsToward(NOW + 3_999, NOW), 3);
    assert.equal(wholeSecondsToward(NOW + 3_000, NOW), 3);
    assert.equal(wholeSecondsToward(NOW + 400, NOW), 1);
  });
});

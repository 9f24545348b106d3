import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ARCHIVE_POLICY, resolveArchivePolicy } from '#domain/archive.ts';
import { DEFAULT_AUTO_PAUSE_POLICY, resolveAutoPausePolicy } from '#domain/auto-pause.ts';
import { InvalidPolicyError } from '#domain/errors.ts';
import { numericPolicy } from '#domain/policy.ts';
import { DEFAULT_CUSTOMER_REPLAY_LIMIT, resolveRateLimit } from '#domain/rate-limit.ts';
import { DEFAULT_REPLAY_POLICY, resolveReplayPolicy } from '#domain/replay.ts';
import { DEFAULT_RETENTION, resolveRetentionPolicy } from '#domain/retention.ts';

// The one place a changed default must be acknowledged: docs/operations.md ("Configuration")
// and the CDK props' TSDoc state these values, and everything else derives from the constants.
describe('recovery policies: documented defaults', () => {
  it('are the ones docs/operations.md states, frozen', () => {
    assert.deepEqual({ ...DEFAULT_REPLAY_POLICY }, { windowSeconds: 300, pageSize: 200 });
    assert.deepEqual({ ...DEFAULT_CUSTOMER_REPLAY_LIMIT }, { limit: 100, windowSeconds: 60 });
    assert.deepEqual({ ...DEFAULT_AUTO_PAUSE_POLICY }, { afterSeconds: 86_400 });
    assert.deepEqual(
      { ...DEFAULT_RETENTION },
      { deliveredDays: 30, deadLetterDays: 90, ttlSafetyMarginDays: 30, archiveDelivered: 0 },
    );
    assert.deepEqual({ ...DEFAULT_ARCHIVE_POLICY }, { batchSize: 1000, restoreHoldDays: 7, lockSeconds: 60 });
    for (const p of [
      DEFAULT_REPLAY_POLICY,
      DEFAULT_CUSTOMER_REPLAY_LIMIT,
      DEFAULT_AUTO_PAUSE_POLICY,
      DEFAULT_RETENTION,
      DEFAULT_ARCHIVE_POLICY,
    ])
      assert.ok(Object.isFrozen(p));
  });
});

describe('recovery policies: overrides are validated like the retry policy', () => {
  const accepted: [string, () => unknown, unknown][] = [
    ['a 0 s replay window (all due at once)', () => resolveReplayPolicy({ windowSeconds: 0 }).windowSeconds, 0],
    ['a one-day replay window', () => resolveReplayPolicy({ windowSeconds: 86_400 }).windowSeconds, 86_400],
    ['a 10-per-second limit', () => resolveRateLimit({ limit: 10, windowSeconds: 1 }), { limit: 10, windowSeconds: 1 }],
    ['a 3 s auto-pause (tests)', () => resolveAutoPausePolicy({ afterSeconds: 3 }).afterSeconds, 3],
    [
      '0-day retention (archive as soon as terminal)',
      () => resolveRetentionPolicy({ deliveredDays: 0, deadLetterDays: 0 }).deadLetterDays,
      0,
    ],
    ['fractional retention days', () => resolveRetentionPolicy({ deliveredDays: 0.5 }).deliveredDays, 0.5],
    ['a 2000-delivery batch', () => resolveArchivePolicy({ batchSize: 2000 }).batchSize, 2000],
    ['nothing: the default', () => resolveReplayPolicy(undefined), DEFAULT_REPLAY_POLICY],
  ];
  for (const [label, run, expected] of accepted) it(`accepts ${label}`, () => assert.deepEqual(run(), expected));

  const refused: [string, () => unknown, RegExp][] = [
    [
      'a negative window',
      () => resolveReplayPolicy({ windowSeconds: -1 }),
      /replayPolicy.windowSeconds must be between 0 and 86400/,
    ],
    ['a fractional window', () => resolveReplayPolicy({ windowSeconds: 1.5 }), /whole number/],
    ['a window as a string', () => resolveReplayPolicy({ windowSeconds: '300' }), /must be a number/],
    ['an unknown field', () => resolveReplayPolicy({ window: 3 }), /replayPolicy.window is not a field/],
    ['a limit of 0', () => resolveRateLimit({ limit: 0 }), /customerReplayLimit.limit/],
    [
      'NaN (an unparsable env value)',
      () => resolveAutoPausePolicy({ afterSeconds: Number.NaN }),
      /autoPause.afterSeconds must be a number/,
    ],
    ['a 0 s auto-pause', () => resolveAutoPausePolicy({ afterSeconds: 0 }), /between 1/],
    ['negative retention', () => resolveRetentionPolicy({ deadLetterDays: -1 }), /retention.deadLetterDays/],
    [
      'a batch too big for one manifest item',
      () => resolveArchivePolicy({ batchSize: 2001 }),
      /archivePolicy.batchSize/,
    ],
    ['an array', () => resolveArchivePolicy([]), /must be an object/],
  ];
  for (const [label, run, message] of refused) {
    it(`refuses ${label}`, () =>
      assert.throws(run, (e: unknown) => e instanceof InvalidPolicyError && message.test((e as Error).message)));
  }
});

describe('numericPolicy: defaults and bounds declared once', () => {
  const limit = { min: 1, max: 10, integer: true };

  it('refuses, as it is declared, a default outside its own bounds', () => {
    assert.throws(
      () => numericPolicy('demo', { n: { default: 11, ...limit } }),
      (e: unknown) => e instanceof InvalidPolicyError && /demo.n must be between 1 and 10/.test((e as Error).message),
    );
  });

  it('resolves an override over the frozen defaults, or over the base it is given', () => {
    const demo = numericPolicy('demo', { a: { default: 1, ...limit }, b: { default: 2, ...limit } });
    assert.ok(Object.isFrozen(demo.defaults));
    assert.equal(demo.resolve(undefined), demo.defaults);
    assert.deepEqual(demo.resolve({ a: 5 }), { a: 5, b: 2 });
    assert.deepEqual(demo.resolve({ a: 5 }, { a: 3, b: 4 }), { a: 5, b: 4 });
    assert.throws(() => demo.resolve({ c: 1 }), /demo.c is not a field \(known: a, b\)/);
  });
});

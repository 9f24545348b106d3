import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_RETRY_POLICY,
  MAX_DEADLINE_SECONDS,
  MAX_DELAY_SECONDS,
  RETRY_PRESETS,
  resolveRetryPolicy,
  type RetryPolicy,
} from '#domain/retry-policy.ts';
import { DomainError, InvalidRetryPolicyError } from '#domain/errors.ts';

describe('retry policy constants', () => {
  it('the default is the one docs/design.md and the README document, frozen, with no attempt limit', () => {
    assert.deepEqual(
      { ...DEFAULT_RETRY_POLICY },
      {
        initialDelaySeconds: 10,
        multiplier: 2,
        maxDelaySeconds: 3600,
        jitter: 0.2,
        deadlineSeconds: 259_200,
      },
    );
    assert.equal(DEFAULT_RETRY_POLICY.maxAttempts, undefined);
    assert.ok(Object.isFrozen(DEFAULT_RETRY_POLICY));
  });

  it('the "10 s doubling to 30 min, 6 tries" preset', () => {
    assert.deepEqual(
      { ...RETRY_PRESETS.tenSecondsToThirtyMinutes },
      {
        initialDelaySeconds: 10,
        multiplier: 2,
        maxDelaySeconds: 1800,
        jitter: 0.2,
        deadlineSeconds: 259_200,
        maxAttempts: 6,
      },
    );
    assert.equal(RETRY_PRESETS.default, DEFAULT_RETRY_POLICY);
    assert.ok(Object.isFrozen(RETRY_PRESETS.tenSecondsToThirtyMinutes));
  });

  it('SQS bounds: 12 h visibility, deadline under 14 days retention', () => {
    assert.equal(MAX_DELAY_SECONDS, 43_200);
    assert.equal(MAX_DEADLINE_SECONDS, 1_206_000);
    assert.ok(MAX_DEADLINE_SECONDS < 14 * 24 * 3600);
  });
});

describe('resolveRetryPolicy(): accepts and merges', () => {
  it('undefined and null give the base unchanged', () => {
    assert.equal(resolveRetryPolicy(undefined), DEFAULT_RETRY_POLICY);
    assert.equal(resolveRetryPolicy(null), DEFAULT_RETRY_POLICY);
    const base = RETRY_PRESETS.tenSecondsToThirtyMinutes;
    assert.equal(resolveRetryPolicy(undefined, base), base);
  });

  const merges: ReadonlyArray<readonly [string, Record<string, unknown>, RetryPolicy, RetryPolicy]> = [
    ['empty override', {}, DEFAULT_RETRY_POLICY, DEFAULT_RETRY_POLICY],
    [
      'one field',
      { initialDelaySeconds: 5 },
      DEFAULT_RETRY_POLICY,
      { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 5 },
    ],
    [
      'the preset, field by field',
      { maxDelaySeconds: 1800, maxAttempts: 6 },
      DEFAULT_RETRY_POLICY,
      RETRY_PRESETS.tenSecondsToThirtyMinutes,
    ],
    [
      'every field',
      {
        initialDelaySeconds: 1,
        multiplier: 1.5,
        maxDelaySeconds: 60,
        jitter: 0,
        deadlineSeconds: 600,
        maxAttempts: 10,
      },
      DEFAULT_RETRY_POLICY,
      {
        initialDelaySeconds: 1,
        multiplier: 1.5,
        maxDelaySeconds: 60,
        jitter: 0,
        deadlineSeconds: 600,
        maxAttempts: 10,
      },
    ],
    [
      'onto another base',
      { jitter: 0.1 },
      RETRY_PRESETS.tenSecondsToThirtyMinutes,
      { ...RETRY_PRESETS.tenSecondsToThirtyMinutes, jitter: 0.1 },
    ],
    [
      'the preset as an override',
      { ...RETRY_PRESETS.tenSecondsToThirtyMinutes },
      DEFAULT_RETRY_POLICY,
      RETRY_PRESETS.tenSecondsToThirtyMinutes,
    ],
    [
      'lower bounds',
      { initialDelaySeconds: 1, maxDelaySeconds: 1, multiplier: 1, jitter: 0, deadlineSeconds: 1, maxAttempts: 1 },
      DEFAULT_RETRY_POLICY,
      {
        initialDelaySeconds: 1,
        maxDelaySeconds: 1,
        multiplier: 1,
        jitter: 0,
        deadlineSeconds: 1,
        maxAttempts: 1,
      },
    ],
    [
      'upper bounds',
      {
        initialDelaySeconds: 43_200,
        maxDelaySeconds: 43_200,
        multiplier: 10,
        jitter: 1,
        deadlineSeconds: MAX_DEADLINE_SECONDS,
        maxAttempts: 1000,
      },
      DEFAULT_RETRY_POLICY,
      {
        initialDelaySeconds: 43_200,
        maxDelaySeconds: 43_200,
        multiplier: 10,
        jitter: 1,
        deadlineSeconds: MAX_DEADLINE_SECONDS,
        maxAttempts: 1000,
      },
    ],
    [
      'max equal to initial',
      { initialDelaySeconds: 30, maxDelaySeconds: 30 },
      DEFAULT_RETRY_POLICY,
      { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 30, maxDelaySeconds: 30 },
    ],
  ];
  for (const [name, override, base, expected] of merges) {
    it(name, () => {
      const before = { ...base };
      const resolved = resolveRetryPolicy(override, base);
      assert.deepEqual({ ...resolved }, { ...expected });
      assert.ok(Object.isFrozen(resolved));
      assert.deepEqual({ ...base }, before, 'the base is not modified');
    });
  }

  it('survives a JSON round trip (as stored on a subscription)', () => {
    const stored = JSON.parse(JSON.stringify(resolveRetryPolicy({ maxAttempts: 4, jitter: 0.3 }))) as unknown;
    assert.deepEqual({ ...resolveRetryPolicy(stored) }, { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, jitter: 0.3 });
  });
});

describe('resolveRetryPolicy(): rejects with InvalidRetryPolicyError naming the field', () => {
  // [name, override, field, message after "retryPolicy.<field> "]
  const table: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ['an unknown field', { initialDelay: 10 }, 'initialDelay', 'is not a retry policy field'],
    ['a misspelt field', { maxattempts: 3 }, 'maxattempts', 'is not a retry policy field'],
    ['an unknown field with a non-number', { foo: 'bar' }, 'foo', 'is not a retry policy field'],
    ['an inherited name: toString', { toString: 5 }, 'toString', 'is not a retry policy field'],
    ['an inherited name: constructor', { constructor: 1 }, 'constructor', 'is not a retry policy field'],
    ['an inherited name: hasOwnProperty', { hasOwnProperty: 1 }, 'hasOwnProperty', 'is not a retry policy field'],
    ['__proto__ from JSON', JSON.parse('{"__proto__": 1}'), '__proto__', 'is not a retry policy field'],
    ['a numeric string', { initialDelaySeconds: '10' }, 'initialDelaySeconds', 'must be a number'],
    ['null', { jitter: null }, 'jitter', 'must be a number'],
    ['a boolean', { deadlineSeconds: true }, 'deadlineSeconds', 'must be a number'],
    ['an object', { multiplier: { value: 2 } }, 'multiplier', 'must be a number'],
    ['NaN', { maxAttempts: Number.NaN }, 'maxAttempts', 'must be a number'],
    ['Infinity', { maxDelaySeconds: Number.POSITIVE_INFINITY }, 'maxDelaySeconds', 'must be a number'],
    ['-Infinity', { multiplier: Number.NEGATIVE_INFINITY }, 'multiplier', 'must be a number'],
    ['fractional initial delay', { initialDelaySeconds: 1.5 }, 'initialDelaySeconds', 'must be a whole number'],
    ['fractional max delay', { maxDelaySeconds: 60.5 }, 'maxDelaySeconds', 'must be a whole number'],
    ['fractional deadline', { deadlineSeconds: 100.1 }, 'deadlineSeconds', 'must be a whole number'],
    ['fractional attempts', { maxAttempts: 2.5 }, 'maxAttempts', 'must be a whole number'],
    ['initial delay 0', { initialDelaySeconds: 0 }, 'initialDelaySeconds', 'must be between 1 and 43200'],
    ['negative initial delay', { initialDelaySeconds: -5 }, 'initialDelaySeconds', 'must be between 1 and 43200'],
    [
      'initial delay above 12 h',
      { initialDelaySeconds: 43_201, maxDelaySeconds: 43_200 },
      'initialDelaySeconds',
      'must be between 1 and 43200',
    ],
    ['multiplier below 1', { multiplier: 0.5 }, 'multiplier', 'must be between 1 and 10'],
    ['multiplier above 10', { multiplier: 11 }, 'multiplier', 'must be between 1 and 10'],
    ['max delay 0', { maxDelaySeconds: 0 }, 'maxDelaySeconds', 'must be between 1 and 43200'],
    ['max delay above 12 h', { maxDelaySeconds: 43_201 }, 'maxDelaySeconds', 'must be between 1 and 43200'],
    ['negative jitter', { jitter: -0.1 }, 'jitter', 'must be between 0 and 1'],
    ['jitter above 100 %', { jitter: 1.1 }, 'jitter', 'must be between 0 and 1'],
    ['deadline 0', { deadlineSeconds: 0 }, 'deadlineSeconds', 'must be between 1 and 1206000'],
    [
      'deadline past SQS retention',
      { deadlineSeconds: MAX_DEADLINE_SECONDS + 1 },
      'deadlineSeconds',
      'must be between 1 and 1206000',
    ],
    ['0 attempts', { maxAttempts: 0 }, 'maxAttempts', 'must be between 1 and 1000'],
    ['1001 attempts', { maxAttempts: 1001 }, 'maxAttempts', 'must be between 1 and 1000'],
    [
      'max below initial',
      { initialDelaySeconds: 100, maxDelaySeconds: 50 },
      'maxDelaySeconds',
      'must be at least initialDelaySeconds',
    ],
    [
      'initial above the base max',
      { initialDelaySeconds: 7200 },
      'maxDelaySeconds',
      'must be at least initialDelaySeconds',
    ],
    ['max below the base initial', { maxDelaySeconds: 5 }, 'maxDelaySeconds', 'must be at least initialDelaySeconds'],
  ];
  for (const [name, override, field, message] of table) {
    it(`${name} -> ${field}`, () => {
      assert.throws(
        () => resolveRetryPolicy(override),
        (error: unknown) => {
          assert.ok(error instanceof InvalidRetryPolicyError, String(error));
          assert.ok(error instanceof DomainError);
          assert.equal(error.field, field);
          assert.equal(error.message, `retryPolicy.${field} ${message}`);
          return true;
        },
      );
    });
  }

  const notObjects: ReadonlyArray<readonly [string, unknown]> = [
    ['a number', 5],
    ['a string', '{"jitter":0}'],
    ['a boolean', true],
    ['an array', [10, 2]],
  ];
  for (const [name, override] of notObjects) {
    it(`${name} is not a policy`, () => {
      assert.throws(
        () => resolveRetryPolicy(override),
        (error: unknown) => {
          assert.ok(error instanceof InvalidRetryPolicyError);
          assert.equal(error.field, '');
          assert.equal(error.message, 'retryPolicy must be an object');
          return true;
        },
      );
    });
  }

  it('checks the merge against the given base', () => {
    const base: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 60, maxDelaySeconds: 120 };
    assert.throws(() => resolveRetryPolicy({ maxDelaySeconds: 30 }, base), InvalidRetryPolicyError);
    assert.equal(resolveRetryPolicy({ maxDelaySeconds: 60 }, base).maxDelaySeconds, 60);
  });
});

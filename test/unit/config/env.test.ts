import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlag, parseNonNegativeInt, parsePositiveInt, parseRetryPolicyEnv, readFunctionEnv } from '#config/env.ts';
import { InvalidEnvironmentError, MissingEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS } from '#config/topology.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';

/** Everything a deployment might set, plus variables no function declares. */
const FULL_ENV = {
  ARCHIVER_FUNCTION_NAME: 'hookline-archiver',
  SUBSCRIPTIONS_TABLE: 'subs',
  ROUTES_TABLE: 'routes',
  EVENTS_TABLE: 'events',
  DELIVERIES_TABLE: 'deliveries',
  ATTEMPTS_TABLE: 'attempts',
  DELIVERY_QUEUE_URL: 'https://sqs/delivery',
  INGEST_QUEUE_URL: 'https://sqs/ingest',
  SLOW_DELIVERY_QUEUE_URL: 'https://sqs/delivery-slow',
  HOOKLINE_ADMIN_KEY_SECRET_ID: 'secret-id',
  HOOKLINE_ALLOW_PRIVATE_TARGETS: '1',
  HOOKLINE_SENDER_TIMEOUT_MS: '5000',
  HOOKLINE_SWEEP_GRACE_SECONDS: '60',
  HOOKLINE_DEFAULT_RETRY_POLICY: '{"maxAttempts":5}',
  API_KEYS_TABLE: 'api-keys',
  INGEST_MANIFESTS_TABLE: 'manifests',
  HOOKLINE_SECRETS_SEAL_KEY_ID: 'seal-key',
  HOOKLINE_SECRETS_OPEN_KEY_ID: 'open-key',
  PORTAL_SESSIONS_TABLE: 'portal-sessions',
  EVENT_TYPES_TABLE: 'event-types',
  KEYRING_TABLE: 'keyring',
  PATH: '/usr/bin',
  AWS_REGION: 'eu-west-1',
};

describe('readFunctionEnv', () => {
  it('returns exactly the authorizer variables', () => {
    assert.deepEqual(readFunctionEnv('authorizer', FULL_ENV), {
      HOOKLINE_ADMIN_KEY_SECRET_ID: 'secret-id',
      API_KEYS_TABLE: 'api-keys',
      PORTAL_SESSIONS_TABLE: 'portal-sessions',
    });
  });

  it('returns exactly the sweeper variables', () => {
    assert.deepEqual(readFunctionEnv('sweeper', FULL_ENV), {
      SUBSCRIPTIONS_TABLE: FULL_ENV.SUBSCRIPTIONS_TABLE,
      ROUTES_TABLE: 'routes',
      EVENTS_TABLE: 'events',
      DELIVERIES_TABLE: 'deliveries',
      INGEST_MANIFESTS_TABLE: 'manifests',
      DELIVERY_QUEUE_URL: 'https://sqs/delivery',
      HOOKLINE_SENDER_TIMEOUT_MS: '5000',
      HOOKLINE_SWEEP_GRACE_SECONDS: '60',
      HOOKLINE_AUTO_PAUSE_SECONDS: ENV_DEFAULTS.HOOKLINE_AUTO_PAUSE_SECONDS,
      HOOKLINE_DEFAULT_RETRY_POLICY: '{"maxAttempts":5}',
      HOOKLINE_RETENTION_DELIVERED_DAYS: ENV_DEFAULTS.HOOKLINE_RETENTION_DELIVERED_DAYS,
      HOOKLINE_RETENTION_DEAD_LETTER_DAYS: ENV_DEFAULTS.HOOKLINE_RETENTION_DEAD_LETTER_DAYS,
      HOOKLINE_ARCHIVE_DELIVERED: ENV_DEFAULTS.HOOKLINE_ARCHIVE_DELIVERED,
    });
  });

  it('returns exactly the ingest variables (no deliveries or attempts table, no admin key)', () => {
    assert.deepEqual(Object.keys(readFunctionEnv('ingest', FULL_ENV)).sort(), [
      'DELIVERY_QUEUE_URL',
      'EVENTS_TABLE',
      'EVENT_TYPES_TABLE',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_EVENT_TYPE_CHECK',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'INGEST_MANIFESTS_TABLE',
      'ROUTES_TABLE',
      'SUBSCRIPTIONS_TABLE',
    ]);
  });

  it('returns exactly the sender variables', () => {
    assert.deepEqual(Object.keys(readFunctionEnv('sender', { ...FULL_ENV, RATE_LIMITS_TABLE: 'l' })).sort(), [
      'ATTEMPTS_TABLE',
      'DELIVERIES_TABLE',
      'DELIVERY_QUEUE_URL',
      'EVENTS_TABLE',
      'HOOKLINE_ALLOWED_PORTS',
      'HOOKLINE_ALLOW_PRIVATE_TARGETS',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_AUTO_PAUSE_SECONDS',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_IN_FLIGHT_WAIT_SECONDS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'HOOKLINE_SECRETS_CACHE_SECONDS',
      'HOOKLINE_SECRETS_OPEN_KEY_ID',
      'HOOKLINE_SENDER_TIMEOUT_MS',
      'HOOKLINE_SLOW_LANE_AFTER_MS',
      'HOOKLINE_SWEEP_GRACE_SECONDS',
      'RATE_LIMITS_TABLE',
      'ROUTES_TABLE',
      'SLOW_DELIVERY_QUEUE_URL',
      'SUBSCRIPTIONS_TABLE',
    ]);
  });

  it('returns exactly the api variables', () => {
    assert.deepEqual(
      Object.keys(
        readFunctionEnv('api', {
          ...FULL_ENV,
          REPLAYS_TABLE: 'r',
          RATE_LIMITS_TABLE: 'l',
          IDEMPOTENCY_KEYS_TABLE: 'i',
        }),
      ).sort(),
      [
        'API_KEYS_TABLE',
        'ARCHIVER_FUNCTION_NAME',
        'ATTEMPTS_TABLE',
        'DELIVERIES_TABLE',
        'DELIVERY_QUEUE_URL',
        'EVENTS_TABLE',
        'EVENT_TYPES_TABLE',
        'HOOKLINE_ALLOWED_PORTS',
        'HOOKLINE_ALLOW_PRIVATE_TARGETS',
        'HOOKLINE_API_ADMIN_KEY_SECRET_ID',
        'HOOKLINE_ARCHIVE_DELIVERED',
        'HOOKLINE_AUTH_CACHE_SECONDS',
        'HOOKLINE_CONSOLE_URL',
        'HOOKLINE_CUSTOMER_PAUSE_LIMIT',
        'HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS',
        'HOOKLINE_CUSTOMER_REPLAY_LIMIT',
        'HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS',
        'HOOKLINE_DEFAULT_RETRY_POLICY',
        'HOOKLINE_EVENT_TYPE_CHECK',
        'HOOKLINE_REPLAY_WINDOW_SECONDS',
        'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
        'HOOKLINE_RETENTION_DELIVERED_DAYS',
        'HOOKLINE_SECRETS_CACHE_SECONDS',
        'HOOKLINE_SECRETS_OPEN_KEY_ID',
        'HOOKLINE_SECRETS_SEAL_KEY_ID',
        'IDEMPOTENCY_KEYS_TABLE',
        'INGEST_MANIFESTS_TABLE',
        'KEYRING_TABLE',
        'PORTAL_SESSIONS_TABLE',
        'RATE_LIMITS_TABLE',
        'REPLAYS_TABLE',
        'ROUTES_TABLE',
        'SUBSCRIPTIONS_TABLE',
      ],
    );
  });

  it('returns exactly the replay and archiver variables (the archiver alone gets the bucket)', () => {
    const env = { ...FULL_ENV, REPLAYS_TABLE: 'r', ARCHIVE_BATCHES_TABLE: 'b', ARCHIVE_BUCKET: 'bucket' };
    assert.deepEqual(Object.keys(readFunctionEnv('replay', env)).sort(), [
      'ATTEMPTS_TABLE',
      'DELIVERIES_TABLE',
      'DELIVERY_QUEUE_URL',
      'EVENTS_TABLE',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_REPLAY_WINDOW_SECONDS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'REPLAYS_TABLE',
      'SUBSCRIPTIONS_TABLE',
    ]);
    assert.deepEqual(Object.keys(readFunctionEnv('archiver', env)).sort(), [
      'ARCHIVE_BATCHES_TABLE',
      'ARCHIVE_BUCKET',
      'ATTEMPTS_TABLE',
      'DELIVERIES_TABLE',
      'EVENTS_TABLE',
      'HOOKLINE_ARCHIVE_BATCH_SIZE',
      'HOOKLINE_ARCHIVE_DELIVERED',
      'HOOKLINE_ARCHIVE_LOCK_SECONDS',
      'HOOKLINE_RESTORE_HOLD_DAYS',
      'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
      'HOOKLINE_RETENTION_DELIVERED_DAYS',
      'SUBSCRIPTIONS_TABLE',
    ]);
  });

  it('fills the ENV_DEFAULTS value of each declared variable that is not set', () => {
    const env = readFunctionEnv('sender', {
      SUBSCRIPTIONS_TABLE: 'subs',
      ROUTES_TABLE: 'routes',
      EVENTS_TABLE: 'events',
      DELIVERIES_TABLE: 'deliveries',
      ATTEMPTS_TABLE: 'attempts',
      DELIVERY_QUEUE_URL: 'https://sqs/delivery',
      SLOW_DELIVERY_QUEUE_URL: 'https://sqs/delivery-slow',
      HOOKLINE_SECRETS_OPEN_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/k',
      RATE_LIMITS_TABLE: 'limits',
    });

    for (const name of [
      'HOOKLINE_ALLOW_PRIVATE_TARGETS',
      'HOOKLINE_SENDER_TIMEOUT_MS',
      'HOOKLINE_SLOW_LANE_AFTER_MS',
      'HOOKLINE_DEFAULT_RETRY_POLICY',
      'HOOKLINE_AUTO_PAUSE_SECONDS',
    ] as const) {
      assert.equal(env[name], ENV_DEFAULTS[name], name);
    }
    assert.equal(
      readFunctionEnv('sweeper', {
        SUBSCRIPTIONS_TABLE: 's',
        ROUTES_TABLE: 'r',
        EVENTS_TABLE: 'e',
        DELIVERIES_TABLE: 'd',
        INGEST_MANIFESTS_TABLE: 'm',
        DELIVERY_QUEUE_URL: 'q',
      }).HOOKLINE_SWEEP_GRACE_SECONDS,
      ENV_DEFAULTS.HOOKLINE_SWEEP_GRACE_SECONDS,
    );
  });

  it('prefers a set value over the default', () => {
    // Twice the default, so the value set can never be the default itself.
    const set = String(2 * Number(ENV_DEFAULTS.HOOKLINE_SWEEP_GRACE_SECONDS));
    const env = readFunctionEnv('sweeper', {
      SUBSCRIPTIONS_TABLE: 's',
      ROUTES_TABLE: 'r',
      EVENTS_TABLE: 'e',
      DELIVERIES_TABLE: 'd',
      INGEST_MANIFESTS_TABLE: 'm',
      DELIVERY_QUEUE_URL: 'q',
      HOOKLINE_SWEEP_GRACE_SECONDS: set,
    });

    assert.equal(env.HOOKLINE_SWEEP_GRACE_SECONDS, set);
  });

  it('names the missing variable and the function', () => {
    const { DELIVERY_QUEUE_URL: _, ...withoutQueue } = FULL_ENV;

    assert.throws(
      () => readFunctionEnv('sweeper', withoutQueue),
      (e: unknown) =>
        e instanceof MissingEnvironmentError &&
        e.name === 'MissingEnvironmentError' &&
        e.variable === 'DELIVERY_QUEUE_URL' &&
        e.functionName === 'sweeper' &&
        e.message === 'environment variable DELIVERY_QUEUE_URL is required by the sweeper function but is not set',
    );
  });

  it('treats an empty value of a variable without a default as missing', () => {
    assert.throws(
      () => readFunctionEnv('authorizer', { HOOKLINE_ADMIN_KEY_SECRET_ID: '' }),
      (e: unknown) =>
        e instanceof MissingEnvironmentError &&
        e.variable === 'HOOKLINE_ADMIN_KEY_SECRET_ID' &&
        e.functionName === 'authorizer',
    );
  });

  it('does not require a variable the function does not declare', () => {
    assert.deepEqual(
      readFunctionEnv('authorizer', {
        HOOKLINE_ADMIN_KEY_SECRET_ID: 's',
        API_KEYS_TABLE: 'k',
        PORTAL_SESSIONS_TABLE: 'p',
      }),
      { HOOKLINE_ADMIN_KEY_SECRET_ID: 's', API_KEYS_TABLE: 'k', PORTAL_SESSIONS_TABLE: 'p' },
    );
  });
});

const invalid = (variable: string) => (e: unknown) =>
  e instanceof InvalidEnvironmentError &&
  e.name === 'InvalidEnvironmentError' &&
  e.variable === variable &&
  e.message.startsWith(`environment variable ${variable} `);

describe('parseFlag', () => {
  const accepted: ReadonlyArray<readonly [string, boolean]> = [
    ['1', true],
    ['true', true],
    ['0', false],
    ['false', false],
  ];
  for (const [value, flag] of accepted) {
    it(`reads '${value}' as ${flag}`, () => {
      assert.equal(parseFlag('HOOKLINE_ALLOW_PRIVATE_TARGETS', value), flag);
    });
  }
  for (const value of ['', 'yes', 'no', 'TRUE', 'True', '2', ' 1', 'on']) {
    it(`rejects '${value}'`, () => {
      assert.throws(
        () => parseFlag('HOOKLINE_ALLOW_PRIVATE_TARGETS', value),
        invalid('HOOKLINE_ALLOW_PRIVATE_TARGETS'),
      );
    });
  }
});

describe('parsePositiveInt', () => {
  const accepted: ReadonlyArray<readonly [string, number]> = [
    ['1', 1],
    ['120', 120],
    ['15000', 15000],
  ];
  for (const [value, n] of accepted) {
    it(`reads '${value}' as ${n}`, () => {
      assert.equal(parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', value), n);
    });
  }
  for (const value of ['', '0', '-1', '1.5', 'abc', '12ms', 'NaN', 'Infinity']) {
    it(`rejects '${value}'`, () => {
      assert.throws(() => parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', value), invalid('HOOKLINE_SENDER_TIMEOUT_MS'));
    });
  }
});

describe('parseNonNegativeInt', () => {
  for (const [value, n] of [
    ['0', 0],
    ['5000', 5000],
  ] as const) {
    it(`reads '${value}' as ${n}`, () => {
      assert.equal(parseNonNegativeInt('HOOKLINE_SLOW_LANE_AFTER_MS', value), n);
    });
  }
  for (const value of ['', '-1', '1.5', 'abc', '5s']) {
    it(`rejects '${value}'`, () => {
      assert.throws(
        () => parseNonNegativeInt('HOOKLINE_SLOW_LANE_AFTER_MS', value),
        invalid('HOOKLINE_SLOW_LANE_AFTER_MS'),
      );
    });
  }
});

describe('parseRetryPolicyEnv', () => {
  it('reads {} as the built-in default', () => {
    assert.deepEqual(parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', '{}'), {
      initialDelaySeconds: 10,
      multiplier: 2,
      maxDelaySeconds: 3600,
      jitter: 0.2,
      deadlineSeconds: 259_200,
    });
  });

  it('merges a partial policy over the default', () => {
    const policy = parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', '{"maxAttempts":6,"maxDelaySeconds":1800}');

    assert.deepEqual(policy, { ...DEFAULT_RETRY_POLICY, maxAttempts: 6, maxDelaySeconds: 1800 });
  });

  const rejected: ReadonlyArray<readonly [string, string]> = [
    ['not JSON', 'maxAttempts=6'],
    ['an empty string', ''],
    ['an array', '[]'],
    ['a number', '5'],
    ['an unknown field', '{"retries":5}'],
    ['a field out of range', '{"jitter":2}'],
    ['a fractional whole-number field', '{"initialDelaySeconds":1.5}'],
    ['a max delay below the initial delay', '{"initialDelaySeconds":60,"maxDelaySeconds":30}'],
    ['a string value', '{"maxAttempts":"6"}'],
  ];
  for (const [label, value] of rejected) {
    it(`rejects ${label}, keeping the cause`, () => {
      assert.throws(
        () => parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', value),
        (e: unknown) =>
          invalid('HOOKLINE_DEFAULT_RETRY_POLICY')(e) &&
          /is not a valid retry policy/.test((e as Error).message) &&
          (e as Error).cause instanceof Error,
      );
    });
  }
});

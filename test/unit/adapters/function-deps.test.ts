import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DYNAMODB_FACTORIES } from '#adapters/deps/dynamodb-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';
import { buildDeps, providedTo } from '#adapters/function-deps.ts';
import { PROVIDED_BY, type FunctionDeps } from '#app/deps.ts';
import { ENV_DEFAULTS, FUNCTIONS, type EnvName, type FunctionKey } from '#config/topology.ts';
import { noMetrics } from '#ports/metrics.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';

/** Every variable set: a function still reads only the ones it declares. */
const FULL_ENV = Object.fromEntries(
  Object.keys(ENV_DEFAULTS).map((name) => [name, ENV_DEFAULTS[name as EnvName] ?? `value-of-${name}`]),
);
const ALWAYS = ['clock', 'metrics', 'resolver'];

describe('dependencies per function, derived from the topology', () => {
  for (const fn of Object.keys(FUNCTIONS) as FunctionKey[]) {
    it(`${fn}: gets exactly the dependencies its declared environment provides, and nothing else`, () => {
      const deps = buildDeps(fn, FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);

      const declared = new Set<string>(FUNCTIONS[fn].environment);
      const expected = Object.entries(PROVIDED_BY)
        .filter(([, needs]) => needs.every((name) => declared.has(name)))
        .map(([dep]) => dep);
      assert.deepEqual(Object.keys(deps).sort(), [...expected, ...ALWAYS].sort());
      assert.deepEqual([...providedTo(fn, FULL_ENV)].sort(), expected.sort());
    });
  }

  it('a store a function cannot reach is absent, not a stub that fails on first use', () => {
    const sweeper = buildDeps('sweeper', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    assert.equal('attempts' in sweeper, false);
    assert.equal('http' in sweeper, false);
    const sender = buildDeps('sender', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    assert.equal(typeof sender.http.post, 'function');
    assert.equal(sender.attemptTimeoutMs, Number(ENV_DEFAULTS.HOOKLINE_SENDER_TIMEOUT_MS));
  });

  it('the types say the same as the run time: reaching for an undeclared store does not type-check', () => {
    const sweeper: FunctionDeps<'sweeper'> = buildDeps('sweeper', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    // @ts-expect-error the sweeper's environment has no ATTEMPTS_TABLE, so its deps have no attempt store
    const attempts = sweeper.attempts;
    // @ts-expect-error nor an HTTP sender (no HOOKLINE_ALLOW_PRIVATE_TARGETS)
    const http = sweeper.http;
    assert.equal(attempts, undefined);
    assert.equal(http, undefined);
    assert.equal(typeof sweeper.deliveries.listDue, 'function');
  });

  it('an entry must hand its function a factory for every dependency it gets, and only those groups end up in its bundle', () => {
    assert.throws(
      // @ts-expect-error the sender's environment provides an HTTP sender, settings and a secret opener: their factories are missing
      () => buildDeps('sender', FULL_ENV, { metrics: noMetrics }, { ...DYNAMODB_FACTORIES, ...SQS_FACTORIES }),
      /no factory for \w+ was given to sender/,
    );
    // The sweeper needs no S3, KMS or HTTP client: DynamoDB, SQS and settings are enough.
    const sweeper = buildDeps(
      'sweeper',
      FULL_ENV,
      { metrics: noMetrics },
      { ...DYNAMODB_FACTORIES, ...SQS_FACTORIES, ...SETTING_FACTORIES },
    );
    assert.equal(typeof sweeper.queue.enqueue, 'function');
  });

  it('a function missing a required variable fails at cold start, naming it', () => {
    const { DELIVERIES_TABLE: _, ...withoutDeliveries } = FULL_ENV;
    assert.throws(
      () => buildDeps('sweeper', withoutDeliveries, { metrics: noMetrics }, ALL_FACTORIES),
      /DELIVERIES_TABLE/,
    );
  });
});

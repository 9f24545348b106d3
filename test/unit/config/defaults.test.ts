import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { policiesFrom } from '#adapters/policy-env.ts';
import { parsePositiveInt, parseRetryPolicyEnv, readFunctionEnv } from '#config/env.ts';
import { DEFAULT_SENDER_TIMEOUT_MS, DEFAULT_SWEEP_GRACE_SECONDS, ENV_DEFAULTS } from '#config/topology.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';
import { DOMAIN_POLICY_DEFAULTS } from '#test/policy-defaults.ts';

/**
 * Each default has one definition (a domain DEFAULT_* or a named constant in topology.ts);
 * ENV_DEFAULTS carries it to the handlers as a string. These tests read the strings back the
 * way a handler does, so a default restated (and later changed) in one place shows up here.
 */
describe('ENV_DEFAULTS read back as the one definition of each default', () => {
  it('an empty environment yields exactly the domain recovery policies', () => {
    assert.deepEqual(policiesFrom({}), DOMAIN_POLICY_DEFAULTS);
  });

  it('the sender timeout and sweep grace parse to their named constants', () => {
    const sender = readFunctionEnv('sender', {
      SUBSCRIPTIONS_TABLE: 's',
      ROUTES_TABLE: 'r',
      EVENTS_TABLE: 'e',
      DELIVERIES_TABLE: 'd',
      ATTEMPTS_TABLE: 'a',
      DELIVERY_QUEUE_URL: 'q',
      SLOW_DELIVERY_QUEUE_URL: 'sq',
      HOOKLINE_SECRETS_OPEN_KEY_ID: 'k',
      RATE_LIMITS_TABLE: 'l',
    });
    assert.equal(
      parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', sender.HOOKLINE_SENDER_TIMEOUT_MS),
      DEFAULT_SENDER_TIMEOUT_MS,
    );
    const sweeper = readFunctionEnv('sweeper', {
      SUBSCRIPTIONS_TABLE: 's',
      ROUTES_TABLE: 'r',
      EVENTS_TABLE: 'e',
      DELIVERIES_TABLE: 'd',
      INGEST_MANIFESTS_TABLE: 'm',
      DELIVERY_QUEUE_URL: 'q',
    });
    assert.equal(
      parsePositiveInt('HOOKLINE_SWEEP_GRACE_SECONDS', sweeper.HOOKLINE_SWEEP_GRACE_SECONDS),
      DEFAULT_SWEEP_GRACE_SECONDS,
    );
  });

  it('the retry policy default is an empty override: the domain default unchanged', () => {
    assert.deepEqual(
      parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', ENV_DEFAULTS.HOOKLINE_DEFAULT_RETRY_POLICY),
      DEFAULT_RETRY_POLICY,
    );
  });
});

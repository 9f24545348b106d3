import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildDeps } from '#adapters/function-deps.ts';
import { KmsSecretOpener, KmsSecretSealer } from '#adapters/kms-secret-cipher.ts';
import { LocalKeySecretCipher } from '#adapters/local-key-secret-cipher.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { ENV_DEFAULTS, FUNCTIONS, type EnvName, type FunctionKey } from '#config/topology.ts';
import { noMetrics } from '#ports/metrics.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { LOCAL_SECRETS_KEY_ID } from '#adapters/deps/secrets-factories.ts';

const FULL_ENV = Object.fromEntries(
  Object.keys(ENV_DEFAULTS).map((name) => [name, ENV_DEFAULTS[name as EnvName] ?? `value-of-${name}`]),
);
const LOCAL_ENV = {
  ...FULL_ENV,
  HOOKLINE_SECRETS_SEAL_KEY_ID: LOCAL_SECRETS_KEY_ID,
  HOOKLINE_SECRETS_OPEN_KEY_ID: LOCAL_SECRETS_KEY_ID,
};

describe('who may seal and who may open signing secrets', () => {
  it('the api seals and opens (rotation, reading the secret); the sender opens and cannot seal; no other function has either', () => {
    for (const fn of Object.keys(FUNCTIONS) as FunctionKey[]) {
      const deps = buildDeps(fn, FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
      assert.equal('secretSealer' in deps, fn === 'api', `${fn} seals`);
      assert.equal('secretOpener' in deps, fn === 'sender' || fn === 'api', `${fn} opens`);
    }
  });

  it('the types say the same: the sender has no sealer', () => {
    const sender: FunctionDeps<'sender'> = buildDeps('sender', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    // @ts-expect-error the sender's environment has no HOOKLINE_SECRETS_SEAL_KEY_ID: it cannot seal
    const sealer = sender.secretSealer;
    assert.equal(sealer, undefined);
  });

  it('on AWS (a key id) both are KMS envelope adapters', () => {
    assert.ok(
      buildDeps('api', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES).secretSealer instanceof KmsSecretSealer,
    );
    assert.ok(
      buildDeps('sender', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES).secretOpener instanceof KmsSecretOpener,
    );
  });

  it('refuses a data-key cache lifetime (HOOKLINE_SECRETS_CACHE_SECONDS) that is not a positive whole number of seconds', () => {
    for (const value of ['0', '-5', '1.5', 'an hour'])
      assert.throws(
        () =>
          buildDeps(
            'sender',
            { ...FULL_ENV, HOOKLINE_SECRETS_CACHE_SECONDS: value },
            { metrics: noMetrics },
            ALL_FACTORIES,
          ),
        /HOOKLINE_SECRETS_CACHE_SECONDS/,
      );
  });

  it('locally (`local`) both use the key the local runtime hands over, and refuse to start without one', () => {
    const localSecretsKey = new Uint8Array(32).fill(3);
    assert.ok(
      buildDeps('api', LOCAL_ENV, { metrics: noMetrics, localSecretsKey }, ALL_FACTORIES).secretSealer instanceof
        LocalKeySecretCipher,
    );
    assert.ok(
      buildDeps('sender', LOCAL_ENV, { metrics: noMetrics, localSecretsKey }, ALL_FACTORIES).secretOpener instanceof
        LocalKeySecretCipher,
    );
    assert.throws(
      () => buildDeps('sender', LOCAL_ENV, { metrics: noMetrics }, ALL_FACTORIES),
      /HOOKLINE_SECRETS_OPEN_KEY_ID/,
    );
  });
});

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerKeySource, StaticKeySource } from '#adapters/secrets-manager-key-source.ts';

const SECRET_ID = 'hookline/admin-key';
const TTL_MS = 60_000;
const smMock = mockClient(SecretsManagerClient);

describe('SecretsManagerKeySource', () => {
  let nowMs: number;
  const source = () =>
    new SecretsManagerKeySource(new SecretsManagerClient({ region: 'eu-west-1' }), SECRET_ID, TTL_MS, () => nowMs);

  beforeEach(() => {
    smMock.reset();
    nowMs = 1_700_000_000_000;
    smMock.on(GetSecretValueCommand).resolvesOnce({ SecretString: 'key-one' }).resolves({ SecretString: 'key-two' });
  });
  after(() => smMock.restore());

  it('reads the secret by its id', async () => {
    assert.equal(await source().adminKey(), 'key-one');

    const calls = smMock.commandCalls(GetSecretValueCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input, { SecretId: SECRET_ID });
  });

  it('serves the cached value until the ttl has passed', async () => {
    const keys = source();
    await keys.adminKey();

    nowMs += TTL_MS - 1;
    const cached = await keys.adminKey();

    assert.equal(cached, 'key-one');
    assert.equal(smMock.commandCalls(GetSecretValueCommand).length, 1);
  });

  it('fetches again once the ttl has passed, so a rotation lands', async () => {
    const keys = source();
    await keys.adminKey();

    nowMs += TTL_MS;
    const rotated = await keys.adminKey();
    nowMs += 1;
    const cachedAgain = await keys.adminKey();

    assert.equal(rotated, 'key-two');
    assert.equal(cachedAgain, 'key-two');
    assert.equal(smMock.commandCalls(GetSecretValueCommand).length, 2);
  });

  it('gives an empty key when the secret has no string value (so no bearer key matches)', async () => {
    smMock.reset();
    smMock.on(GetSecretValueCommand).resolves({});

    assert.equal(await source().adminKey(), '');
  });

  it('does not cache a failed read', async () => {
    smMock.reset();
    smMock
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('ThrottlingException'))
      .resolves({ SecretString: 'key-after' });
    const keys = source();

    await assert.rejects(keys.adminKey(), /ThrottlingException/);
    assert.equal(await keys.adminKey(), 'key-after');
  });
});

describe('StaticKeySource', () => {
  it('returns the key it was given', async () => {
    assert.equal(await new StaticKeySource('local-key').adminKey(), 'local-key');
  });
});

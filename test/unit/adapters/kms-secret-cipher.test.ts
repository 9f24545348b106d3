import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSecretOpener, KmsSecretSealer, secretsContext } from '#adapters/kms-secret-cipher.ts';
import { DEFAULT_SECRETS_CACHE_SECONDS } from '#config/topology.ts';

// KMS is not emulated locally, so the adapter is tested against a mocked client: what it
// asks KMS for, what it stores, and how often it asks. The mock plays KMS's part faithfully
// enough for that: it hands out one data key and refuses a Decrypt under another context.
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const kmsMock = mockClient(KMSClient);
const client = () => new KMSClient({ region: 'eu-west-1' });
const dataKey = () => new Uint8Array(32).fill(7);
const ENCRYPTED_KEY = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);

describe('KMS envelope sealing of signing secrets', () => {
  let nowMs: number;
  beforeEach(() => {
    kmsMock.reset();
    nowMs = 1_700_000_000_000;
    kmsMock
      .on(GenerateDataKeyCommand)
      .callsFake(async () => ({ Plaintext: dataKey(), CiphertextBlob: ENCRYPTED_KEY, KeyId: KEY_ARN }));
    kmsMock.on(DecryptCommand).callsFake(async (input: { EncryptionContext?: Record<string, string> }) => {
      // Real KMS refuses a context other than the one the data key was generated under.
      if (input.EncryptionContext?.subscriptionId !== 'sub_a')
        throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
      return { Plaintext: dataKey(), KeyId: KEY_ARN };
    });
  });
  after(() => kmsMock.restore());

  const opener = (options = {}) => new KmsSecretOpener(client(), KEY_ARN, options, () => nowMs);

  it('seals with one GenerateDataKey (AES_256, the subscription in the encryption context) and stores the encrypted key beside the ciphertext', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);

    const calls = kmsMock.commandCalls(GenerateDataKeyCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input, {
      KeyId: KEY_ARN,
      KeySpec: 'AES_256',
      EncryptionContext: { purpose: 'hookline-signing-secrets', subscriptionId: 'sub_a' },
    });
    assert.equal(sealed.scheme, 'kms-v1');
    assert.equal(sealed.key, Buffer.from(ENCRYPTED_KEY).toString('base64'));
    assert.ok(!JSON.stringify(sealed).includes('whsec_'));
  });

  it('opens with Decrypt under the same key id and context', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    assert.deepEqual(await opener().open('sub_a', sealed), [SECRET]);

    const calls = kmsMock.commandCalls(DecryptCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input, {
      KeyId: KEY_ARN,
      CiphertextBlob: Buffer.from(ENCRYPTED_KEY),
      EncryptionContext: secretsContext('sub_a'),
    });
  });

  it('caches the data key: many attempts within the TTL make one Decrypt, the next after it another', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    const o = opener({ ttlMs: 60_000 });
    for (let i = 0; i < 5; i++) assert.deepEqual(await o.open('sub_a', sealed), [SECRET]);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 1);

    nowMs += 60_000;
    await o.open('sub_a', sealed);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 2);
  });

  it('by default reuses a data key for an hour (DEFAULT_SECRETS_CACHE_SECONDS): one Decrypt per subscription per hour', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    const o = opener();
    await o.open('sub_a', sealed);
    nowMs += DEFAULT_SECRETS_CACHE_SECONDS * 1000 - 1;
    await o.open('sub_a', sealed);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 1);
    nowMs += 1;
    await o.open('sub_a', sealed);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 2);
  });

  it('concurrent opens of one subscription (a batch) share one Decrypt', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    const o = opener();
    await Promise.all(Array.from({ length: 10 }, () => o.open('sub_a', sealed)));
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 1);
  });

  it('does not remember a failed Decrypt: the next attempt asks KMS again', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    kmsMock
      .on(DecryptCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))
      .resolves({ Plaintext: dataKey() });
    const o = opener();
    await assert.rejects(o.open('sub_a', sealed), /throttled/);
    assert.deepEqual(await o.open('sub_a', sealed), [SECRET]);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 2);
  });

  it('holds at most maxKeys data keys, dropping the oldest', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    kmsMock.on(DecryptCommand).resolves({ Plaintext: dataKey() });
    const o = opener({ maxKeys: 1 });
    await o.open('sub_a', sealed);
    await assert.rejects(o.open('sub_b', sealed)); // evicts sub_a's key (and fails AES: wrong subscription)
    await o.open('sub_a', sealed);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 3);
  });

  it('refuses a blob moved to another subscription: KMS refuses the context', async () => {
    const sealed = await new KmsSecretSealer(client(), KEY_ARN).seal('sub_a', [SECRET]);
    await assert.rejects(opener().open('sub_b', sealed), /InvalidCiphertextException/);
  });

  it('refuses a local-sealed blob and one without a data key, without calling KMS', async () => {
    const o = opener();
    await assert.rejects(
      o.open('sub_a', { scheme: 'local-v1', iv: 'AA==', tag: 'AA==', data: 'AA==' }),
      /sealed with local-v1/,
    );
    await assert.rejects(
      o.open('sub_a', { scheme: 'kms-v1', iv: 'AA==', tag: 'AA==', data: 'AA==' }),
      /no encrypted data key/,
    );
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 0);
  });
});

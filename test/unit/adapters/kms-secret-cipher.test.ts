import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSecretOpener, KmsSecretSealer, ringOf, secretsContext } from '#adapters/kms-secret-cipher.ts';
import { encryptSecrets } from '#adapters/aes-gcm-secrets.ts';
import { SealedSecretsError } from '#adapters/errors.ts';
import { DEFAULT_SECRETS_CACHE_SECONDS } from '#config/topology.ts';
import type { SealedSecrets } from '#domain/types.ts';
import { InMemoryKeyringStore } from '#test/memory-keyring-store.ts';

// KMS is not emulated locally, so the adapter is tested against a mocked client: what it asks
// KMS for, what it stores, and how often it asks. The mock plays KMS's part faithfully enough
// for that: each encrypted key is bound to the context it was generated under (here it simply
// is that context), and a Decrypt under another context is refused, as KMS refuses it.
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const kmsMock = mockClient(KMSClient);
const client = () => new KMSClient({ region: 'eu-west-1' });
/** Each context's data key: distinct, so a key used under the wrong context fails AES-GCM. */
const dataKeyOf = (context: unknown) => new Uint8Array(32).fill(JSON.stringify(context).length & 0xff);
const blobOf = (context: unknown) => Buffer.from(JSON.stringify(context));
const NOV_2023 = Date.parse('2023-11-14T22:13:20.000Z');

describe('KMS envelope sealing of signing secrets, one shared data key a month', () => {
  let nowMs: number;
  let keyring: InMemoryKeyringStore;
  beforeEach(() => {
    kmsMock.reset();
    nowMs = NOV_2023;
    keyring = new InMemoryKeyringStore();
    kmsMock.on(GenerateDataKeyCommand).callsFake(async (input: { EncryptionContext?: Record<string, string> }) => ({
      Plaintext: dataKeyOf(input.EncryptionContext),
      CiphertextBlob: blobOf(input.EncryptionContext),
      KeyId: KEY_ARN,
    }));
    kmsMock
      .on(DecryptCommand)
      .callsFake(async (input: { CiphertextBlob?: Uint8Array; EncryptionContext?: Record<string, string> }) => {
        if (!input.CiphertextBlob || !blobOf(input.EncryptionContext).equals(Buffer.from(input.CiphertextBlob)))
          throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
        return { Plaintext: dataKeyOf(input.EncryptionContext), KeyId: KEY_ARN };
      });
  });
  after(() => kmsMock.restore());

  const sealer = (options = {}) => new KmsSecretSealer(client(), KEY_ARN, keyring, options, () => nowMs);
  const opener = (options = {}) => new KmsSecretOpener(client(), KEY_ARN, options, () => nowMs);
  const generated = () => kmsMock.commandCalls(GenerateDataKeyCommand).length;
  const decrypts = () => kmsMock.commandCalls(DecryptCommand).length;

  it("the month's first seal makes its data key (AES_256, the ring in the context), stores it in the keyring, and seals with it", async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);

    const calls = kmsMock.commandCalls(GenerateDataKeyCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input, {
      KeyId: KEY_ARN,
      KeySpec: 'AES_256',
      EncryptionContext: { purpose: 'hookline-signing-secrets', ring: '2023-11' },
    });
    assert.equal(sealed.scheme, 'kms-v2');
    assert.equal(sealed.ring, '2023-11');
    assert.equal(sealed.key, blobOf(secretsContext({ ring: '2023-11' })).toString('base64'));
    assert.equal(keyring.items.get('2023-11')?.encryptedKey, sealed.key);
    assert.equal(keyring.items.get('2023-11')?.createdAt, new Date(NOV_2023).toISOString());
    assert.ok(!JSON.stringify(sealed).includes('whsec_'));
  });

  it('every later seal of the month, in this container or another, uses the same key: no GenerateDataKey, one Decrypt a container', async () => {
    const first = sealer();
    const a = await first.seal('sub_a', [SECRET]);
    const b = await first.seal('sub_b', [SECRET]);
    assert.equal(generated(), 1);
    assert.equal(decrypts(), 0, 'the container that made the key keeps it');

    const other = sealer();
    const c = await other.seal('sub_c', [SECRET]);
    const d = await other.seal('sub_d', [SECRET]);
    assert.equal(generated(), 1);
    assert.equal(decrypts(), 1, "another container decrypts the stored key once, under the ring's context");
    assert.deepEqual(kmsMock.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext, {
      purpose: 'hookline-signing-secrets',
      ring: '2023-11',
    });
    assert.deepEqual(new Set([a.key, b.key, c.key, d.key]).size, 1);
    assert.notEqual(a.data, b.data, 'each subscription its own ciphertext');
  });

  it('a new month makes a new key', async () => {
    const s = sealer();
    const november = await s.seal('sub_a', [SECRET]);
    nowMs = Date.parse('2023-12-01T00:00:00.000Z');
    const december = await s.seal('sub_b', [SECRET]);
    assert.equal(generated(), 2);
    assert.deepEqual([november.ring, december.ring], ['2023-11', '2023-12']);
    assert.notEqual(november.key, december.key);
    assert.deepEqual([...keyring.items.keys()], ['2023-11', '2023-12']);
  });

  it("two containers making the same month's key at once: the one stored wins, and both seal with it", async () => {
    // The other container's key lands between this one's read of the keyring and its put.
    const theirs = blobOf(secretsContext({ ring: '2023-11' })).toString('base64');
    const racing = new InMemoryKeyringStore();
    const get = racing.get.bind(racing);
    let reads = 0;
    racing.get = async (ring) => {
      const found = await get(ring);
      if (reads++ === 0) racing.items.set(ring, { ring, encryptedKey: theirs, createdAt: 'earlier' });
      return found;
    };
    const s = new KmsSecretSealer(client(), KEY_ARN, racing, {}, () => nowMs);

    const sealed = await s.seal('sub_a', [SECRET]);

    assert.equal(generated(), 1);
    assert.equal(decrypts(), 1, 'their key, decrypted');
    assert.equal(sealed.key, theirs);
    assert.equal(racing.items.get('2023-11')?.createdAt, 'earlier');
    assert.deepEqual(await opener().open('sub_a', sealed), [SECRET]);
  });

  it('opens with Decrypt under the key id and the ring: the subscriptions of one ring share one Decrypt', async () => {
    const s = sealer();
    const sealed = await Promise.all(['sub_a', 'sub_b', 'sub_c'].map((id) => s.seal(id, [`${SECRET}${id}`])));
    const o = opener();
    for (const [i, id] of ['sub_a', 'sub_b', 'sub_c'].entries())
      assert.deepEqual(await o.open(id, sealed[i]!), [`${SECRET}${id}`]);

    const calls = kmsMock.commandCalls(DecryptCommand);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.args[0].input, {
      KeyId: KEY_ARN,
      CiphertextBlob: Buffer.from(sealed[0]!.key!, 'base64'),
      EncryptionContext: secretsContext({ ring: '2023-11' }),
    });
  });

  it('still opens a blob sealed before the keyring (kms-v1: its own key, the subscription in the context)', async () => {
    const context = secretsContext({ subscriptionId: 'sub_old' });
    const v1: SealedSecrets = {
      scheme: 'kms-v1',
      key: blobOf(context).toString('base64'),
      ...encryptSecrets(dataKeyOf(context), 'kms-v1', 'sub_old', [SECRET]),
    };
    assert.deepEqual(await opener().open('sub_old', v1), [SECRET]);
    assert.deepEqual(kmsMock.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext, context);
    await assert.rejects(opener().open('sub_new', v1), /InvalidCiphertextException/);
  });

  it('caches the data key: many opens within the TTL make one Decrypt, the next after it another', async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    const o = opener({ ttlMs: 60_000 });
    for (let i = 0; i < 5; i++) assert.deepEqual(await o.open('sub_a', sealed), [SECRET]);
    assert.equal(decrypts(), 1);

    nowMs += 60_000;
    await o.open('sub_a', sealed);
    assert.equal(decrypts(), 2);
  });

  it('by default reuses a data key for an hour (DEFAULT_SECRETS_CACHE_SECONDS), in the opener and the sealer', async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    const o = opener();
    await o.open('sub_a', sealed);
    nowMs += DEFAULT_SECRETS_CACHE_SECONDS * 1000 - 1;
    await o.open('sub_a', sealed);
    assert.equal(decrypts(), 1);
    nowMs += 1;
    await o.open('sub_a', sealed);
    assert.equal(decrypts(), 2);

    // A sealer holds the month's key as long, then reads it back from the keyring.
    nowMs = NOV_2023;
    const s = sealer();
    await s.seal('sub_b', [SECRET]);
    await s.seal('sub_c', [SECRET]);
    assert.equal(decrypts(), 3, 'the stored key, once for two seals');
    nowMs += DEFAULT_SECRETS_CACHE_SECONDS * 1000;
    await s.seal('sub_d', [SECRET]);
    assert.equal(decrypts(), 4);
    assert.equal(generated(), 1);
  });

  it('concurrent opens of one ring (a batch) share one Decrypt', async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    const o = opener();
    await Promise.all(Array.from({ length: 10 }, () => o.open('sub_a', sealed)));
    assert.equal(decrypts(), 1);
  });

  it('does not remember a failed Decrypt: the next open asks KMS again', async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    kmsMock
      .on(DecryptCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }))
      .resolves({ Plaintext: dataKeyOf(secretsContext({ ring: '2023-11' })) });
    const o = opener();
    await assert.rejects(o.open('sub_a', sealed), /throttled/);
    assert.deepEqual(await o.open('sub_a', sealed), [SECRET]);
    assert.equal(decrypts(), 2);
  });

  it('does not remember a failed GenerateDataKey, and stores nothing for it', async () => {
    kmsMock
      .on(GenerateDataKeyCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    const s = sealer();
    await assert.rejects(s.seal('sub_a', [SECRET]), /throttled/);
    assert.equal(keyring.items.size, 0);
  });

  it('holds at most maxKeys data keys, dropping the oldest', async () => {
    const s = sealer();
    const november = await s.seal('sub_a', [SECRET]);
    nowMs = Date.parse('2023-12-01T00:00:00.000Z');
    const december = await s.seal('sub_b', [SECRET]);
    const o = opener({ maxKeys: 1 });
    await o.open('sub_a', november);
    await o.open('sub_b', december); // evicts November's key
    await o.open('sub_a', november);
    assert.equal(decrypts(), 3);
  });

  it("refuses a blob moved to another subscription: AES-GCM's additional data names the subscription", async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    await assert.rejects(opener().open('sub_b', sealed), (e: unknown) => e instanceof SealedSecretsError);
  });

  it('refuses a blob whose ring was changed: KMS refuses the context', async () => {
    const sealed = await sealer().seal('sub_a', [SECRET]);
    await assert.rejects(opener().open('sub_a', { ...sealed, ring: '2023-10' }), /InvalidCiphertextException/);
  });

  it('refuses a local-sealed blob, one without a data key and a kms-v2 one without a ring, without calling KMS', async () => {
    const o = opener();
    const parts = { iv: 'AA==', tag: 'AA==', data: 'AA==' };
    await assert.rejects(o.open('sub_a', { scheme: 'local-v1', ...parts }), /sealed with local-v1/);
    await assert.rejects(o.open('sub_a', { scheme: 'kms-v1', ...parts }), /no encrypted data key/);
    await assert.rejects(o.open('sub_a', { scheme: 'kms-v2', key: 'AA==', ...parts }), /name no ring/);
    assert.equal(decrypts(), 0);
  });

  it('ringOf: the UTC month', () => {
    assert.equal(ringOf(Date.parse('2026-12-31T23:59:59.999Z')), '2026-12');
    assert.equal(ringOf(Date.parse('2027-01-01T00:00:00.000Z')), '2027-01');
  });
});

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSecretOpener, KmsSecretSealer } from '#adapters/kms-secret-cipher.ts';
import { LocalKeySecretCipher } from '#adapters/local-key-secret-cipher.ts';
import { openSecrets } from '#app/secrets/open-secrets.ts';
import { OpenedSecretsCache } from '#app/secrets/opened-secrets-cache.ts';
import type { SealedSecrets } from '#domain/types.ts';
import type { SecretOpener } from '#ports/secret-sealer.ts';
import { aSubscription } from '#test/fakes.ts';
import { InMemoryKeyringStore } from '#test/memory-keyring-store.ts';

const A = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const B = 'whsec_bGVnYWN5IHNlY3JldCBmcm9tIGJlZm9yZSBzZWFsaW5n';

/** An opener that counts its calls and opens through a real local-key cipher. */
function counting(cipher = new LocalKeySecretCipher(new Uint8Array(32).fill(9))) {
  const calls: string[] = [];
  const opener: SecretOpener = { open: (id, sealed) => (calls.push(id), cipher.open(id, sealed)) };
  return { opener, calls, cipher };
}

describe('OpenedSecretsCache', () => {
  let nowMs = 1_700_000_000_000;
  const cache = (options = {}) => new OpenedSecretsCache(options, () => nowMs);

  it('opens a blob once and serves it again, frozen', async () => {
    const { opener, calls, cipher } = counting();
    const sealed = await cipher.seal('sub_a', [A]);
    const c = cache();
    for (let i = 0; i < 3; i++) assert.deepEqual(await c.open(opener, 'sub_a', sealed), [A]);
    assert.deepEqual(calls, ['sub_a']);
    assert.ok(Object.isFrozen(await c.open(opener, 'sub_a', sealed)));
  });

  it('a rotated secret (a new ciphertext) is opened afresh; a copy of the same blob is a hit', async () => {
    const { opener, calls, cipher } = counting();
    const c = cache();
    const first = await cipher.seal('sub_a', [A]);
    await c.open(opener, 'sub_a', first);
    assert.deepEqual(await c.open(opener, 'sub_a', { ...first }), [A]);
    assert.deepEqual(await c.open(opener, 'sub_a', await cipher.seal('sub_a', [B, A])), [B, A]);
    assert.equal(calls.length, 2);
  });

  it('the same blob under another subscription, or altered in any field but the tag, goes to the opener', async () => {
    const { opener, calls, cipher } = counting();
    const c = cache();
    const sealed = await cipher.seal('sub_a', [A]);
    await c.open(opener, 'sub_a', sealed);
    await assert.rejects(c.open(opener, 'sub_b', sealed), 'sealed for another subscription');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    await assert.rejects(c.open(opener, 'sub_a', { ...sealed, data: flip(sealed.data) }));
    await assert.rejects(c.open(opener, 'sub_a', { ...sealed, iv: flip(sealed.iv) }));
    await assert.rejects(c.open(opener, 'sub_a', { ...sealed, scheme: 'kms-v1' } as SealedSecrets));
    // The local key ignores an encrypted data key, so this one opens, but only the opener may say so.
    await c.open(opener, 'sub_a', { ...sealed, key: 'x' });
    assert.equal(calls.length, 6);
    assert.deepEqual(await c.open(opener, 'sub_a', sealed), [A], 'the good entry is still there');
  });

  it('a failed open is not remembered', async () => {
    let fail = true;
    const { cipher } = counting();
    const opener: SecretOpener = {
      open: async (id, s) => (fail ? Promise.reject(new Error('throttled')) : cipher.open(id, s)),
    };
    const sealed = await cipher.seal('sub_a', [A]);
    const c = cache();
    await assert.rejects(c.open(opener, 'sub_a', sealed), /throttled/);
    fail = false;
    assert.deepEqual(await c.open(opener, 'sub_a', sealed), [A]);
  });

  it('an opener that throws at once rejects, like an async one', async () => {
    const opener: SecretOpener = {
      open: () => {
        throw new Error('boom');
      },
    };
    await assert.rejects(cache().open(opener, 'sub_a', { scheme: 'local-v1', iv: 'i', tag: 't', data: 'd' }), /boom/);
  });

  it('concurrent opens of one blob share one call', async () => {
    const { opener, calls, cipher } = counting();
    const sealed = await cipher.seal('sub_a', [A]);
    const c = cache();
    await Promise.all([
      c.open(opener, 'sub_a', sealed),
      c.open(opener, 'sub_a', sealed),
      c.open(opener, 'sub_a', sealed),
    ]);
    assert.equal(calls.length, 1);
  });

  it('an entry lasts ttlMs, then the blob is opened again', async () => {
    const { opener, calls, cipher } = counting();
    const sealed = await cipher.seal('sub_a', [A]);
    const c = cache({ ttlMs: 1000 });
    await c.open(opener, 'sub_a', sealed);
    nowMs += 999;
    await c.open(opener, 'sub_a', sealed);
    nowMs += 1;
    await c.open(opener, 'sub_a', sealed);
    assert.equal(calls.length, 2);
  });

  it('holds at most maxEntries blobs per opener, the oldest dropped first', async () => {
    const { opener, calls, cipher } = counting();
    const c = cache({ maxEntries: 2 });
    const [x, y, z] = [
      await cipher.seal('sub_x', [A]),
      await cipher.seal('sub_y', [A]),
      await cipher.seal('sub_z', [A]),
    ];
    await c.open(opener, 'sub_x', x);
    await c.open(opener, 'sub_y', y);
    await c.open(opener, 'sub_z', z);
    await c.open(opener, 'sub_z', z);
    await c.open(opener, 'sub_y', y);
    assert.deepEqual(calls, ['sub_x', 'sub_y', 'sub_z']);
    await c.open(opener, 'sub_x', x);
    assert.deepEqual(calls, ['sub_x', 'sub_y', 'sub_z', 'sub_x']);
  });

  it('a blob opened by one opener is never served to another', async () => {
    const one = counting();
    const other = counting(new LocalKeySecretCipher(new Uint8Array(32).fill(3)));
    const sealed = await one.cipher.seal('sub_a', [A]);
    const c = cache();
    await c.open(one.opener, 'sub_a', sealed);
    await assert.rejects(c.open(other.opener, 'sub_a', sealed), 'the other key does not open it');
    assert.equal(other.calls.length, 1);
  });
});

describe('openSecrets goes through the cache on both paths', () => {
  const kmsMock = mockClient(KMSClient);
  const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  beforeEach(() => {
    kmsMock.reset();
    kmsMock.on(GenerateDataKeyCommand).callsFake(async () => ({
      Plaintext: new Uint8Array(32).fill(7),
      CiphertextBlob: Uint8Array.from([1, 2, 3]),
      KeyId: KEY_ARN,
    }));
    kmsMock.on(DecryptCommand).callsFake(async () => ({ Plaintext: new Uint8Array(32).fill(7), KeyId: KEY_ARN }));
  });
  after(() => kmsMock.restore());

  it('local key: one open per blob, a rotation opened afresh', async () => {
    const { opener, calls, cipher } = counting();
    const sub = aSubscription({ id: 'sub_local', secrets: await cipher.seal('sub_local', [A]) });
    for (let i = 0; i < 3; i++) assert.deepEqual(await openSecrets({ secretOpener: opener }, sub), [A]);
    const rotated = { ...sub, secrets: await cipher.seal('sub_local', [B, A]) };
    assert.deepEqual(await openSecrets({ secretOpener: opener }, rotated), [B, A]);
    assert.equal(calls.length, 2);
  });

  it('KMS: one open (and one Decrypt) per blob', async () => {
    const client = new KMSClient({ region: 'eu-west-1' });
    const kms = new KmsSecretOpener(client, KEY_ARN, { ttlMs: 0 });
    const calls: string[] = [];
    const opener: SecretOpener = { open: (id, sealed) => (calls.push(id), kms.open(id, sealed)) };
    const sub = aSubscription({
      id: 'sub_kms',
      secrets: await new KmsSecretSealer(client, KEY_ARN, new InMemoryKeyringStore()).seal('sub_kms', [A]),
    });
    for (let i = 0; i < 3; i++) assert.deepEqual(await openSecrets({ secretOpener: opener }, sub), [A]);
    assert.equal(calls.length, 1);
    assert.equal(kmsMock.commandCalls(DecryptCommand).length, 1);
  });

  it('a row from before sealing is served as stored, without the opener', async () => {
    const sub = aSubscription({ id: 'sub_plain', secrets: { scheme: 'plain', secrets: [A] } });
    assert.deepEqual(
      await openSecrets({ secretOpener: { open: async () => assert.fail('no opener for a plain row') } }, sub),
      [A],
    );
  });
});

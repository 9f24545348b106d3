import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decryptSecrets, encryptSecrets, expectScheme } from '#adapters/aes-gcm-secrets.ts';
import { SealedSecretsError } from '#adapters/errors.ts';
import type { SealedSecrets } from '#domain/types.ts';

const KEY = new Uint8Array(32).fill(1);
const SECRETS = ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_b2xkIHNlY3JldCBkdXJpbmcgcm90YXRpb24='];
const seal = (id = 'sub_a', secrets = SECRETS): SealedSecrets => ({
  scheme: 'local-v1',
  ...encryptSecrets(KEY, 'local-v1', id, secrets),
});

/** Flips one bit of a base64 field, as a corrupted or hand-edited row would. */
function flip(b64: string, at = 0): string {
  const bytes = Buffer.from(b64, 'base64');
  bytes[at]! ^= 0x01;
  return bytes.toString('base64');
}

describe('AES-256-GCM sealing of signing secrets', () => {
  it('round-trips every secret, in order', () => {
    assert.deepEqual(decryptSecrets(KEY, seal(), 'sub_a'), SECRETS);
  });

  it('holds nothing readable: no whsec_, no secret bytes, a fresh IV every time', () => {
    const a = seal();
    const b = seal();
    const raw = JSON.stringify(a);
    assert.ok(!raw.includes('whsec_'));
    for (const s of SECRETS) assert.ok(!raw.includes(s.slice(6)));
    assert.notEqual(a.iv, b.iv);
    assert.notEqual(a.data, b.data);
    assert.equal(Buffer.from(a.iv, 'base64').length, 12);
    assert.equal(Buffer.from(a.tag, 'base64').length, 16);
  });

  for (const field of ['data', 'tag', 'iv'] as const) {
    it(`refuses a blob whose ${field} was altered`, () => {
      const sealed = seal();
      assert.throws(
        () => decryptSecrets(KEY, { ...sealed, [field]: flip(sealed[field]) }, 'sub_a'),
        SealedSecretsError,
      );
    });
  }

  it('refuses a blob moved to another subscription (the id is authenticated data)', () => {
    assert.throws(() => decryptSecrets(KEY, seal('sub_a'), 'sub_b'), /do not open/);
  });

  it('refuses a blob relabelled with another scheme (the scheme is authenticated data too)', () => {
    assert.throws(() => decryptSecrets(KEY, { ...seal(), scheme: 'kms-v1' }, 'sub_a'), SealedSecretsError);
  });

  it('refuses another key', () => {
    assert.throws(() => decryptSecrets(new Uint8Array(32).fill(2), seal(), 'sub_a'), SealedSecretsError);
  });

  it('refuses a data key that is not 32 bytes', () => {
    assert.throws(() => encryptSecrets(new Uint8Array(16), 'local-v1', 'sub_a', SECRETS), /32 bytes/);
    assert.throws(() => decryptSecrets(new Uint8Array(31), seal(), 'sub_a'), /32 bytes/);
  });

  it('expectScheme refuses a blob of the other adapter', () => {
    assert.doesNotThrow(() => expectScheme(seal(), 'local-v1', 'sub_a'));
    assert.throws(() => expectScheme(seal(), 'kms-v1', 'sub_a'), /sealed with local-v1/);
  });
});

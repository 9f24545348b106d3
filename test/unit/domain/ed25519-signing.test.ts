import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import {
  checkSecret,
  formatSecret,
  formatSigningKey,
  publicKeyOf,
  schemeOf,
  sign,
  signatureHeaders,
} from '#domain/signing.ts';
import { InvalidSecretError } from '#domain/errors.ts';

const seed = (fill: number) => new Uint8Array(32).fill(fill);
const KEY = formatSigningKey(seed(0x42));

/** The spec's check, with node:crypto alone: Ed25519 over `id.timestamp.body`, key `whpk_` + base64 of its 32 raw bytes. */
function specVerifies(publicKey: string, signature: string, id: string, ts: number, body: string): boolean {
  const x = Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  return verify(null, Buffer.from(`${id}.${ts}.${body}`), key, Buffer.from(signature.replace(/^v1a,/, ''), 'base64'));
}

describe('v1a: Ed25519 signing keys and their public keys', () => {
  it('signs as `v1a,<base64>` that the public key verifies, and nothing else does', () => {
    const signature = sign(KEY, 'msg_1', 1_700_000_000, '{"a":1}');
    assert.match(signature, /^v1a,[A-Za-z0-9+/]{86}==$/);
    const pub = publicKeyOf(KEY);
    assert.ok(specVerifies(pub, signature, 'msg_1', 1_700_000_000, '{"a":1}'));
    assert.ok(!specVerifies(pub, signature, 'msg_1', 1_700_000_001, '{"a":1}'), 'another timestamp');
    assert.ok(!specVerifies(pub, signature, 'msg_1', 1_700_000_000, '{"a":2}'), 'another body');
    assert.ok(
      !specVerifies(publicKeyOf(formatSigningKey(seed(0x43))), signature, 'msg_1', 1_700_000_000, '{"a":1}'),
      'another key',
    );
  });

  it('derives the same public key node:crypto derives from the seed, as whpk_ + base64 of 32 bytes', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
    const expected = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
    const pub = publicKeyOf(formatSigningKey(d));
    assert.deepEqual(Buffer.from(pub.slice(5), 'base64'), expected);
  });

  it('reads a 64-byte whsk_ (seed then public key) as its seed', () => {
    const pub = Buffer.from(publicKeyOf(KEY).slice(5), 'base64');
    const long = `whsk_${Buffer.concat([Buffer.from(seed(0x42)), pub]).toString('base64')}`;
    assert.equal(sign(long, 'm', 1, 'b'), sign(KEY, 'm', 1, 'b'));
  });

  it('signs with each key of a rotation, HMAC and Ed25519 side by side when a list holds both', () => {
    const hmac = formatSecret(seed(0x11));
    const headers = signatureHeaders([KEY, hmac], 'msg_2', 5, 'x');
    const parts = headers['webhook-signature'].split(' ');
    assert.deepEqual(
      parts.map((p) => p.split(',')[0]),
      ['v1a', 'v1'],
    );
  });

  it('tells the scheme by prefix and checks a brought secret against the subscription’s scheme', () => {
    assert.equal(schemeOf(KEY), 'v1a');
    assert.equal(schemeOf(formatSecret(seed(1))), 'v1');
    assert.equal(checkSecret(KEY, 'v1a'), KEY);
    assert.throws(() => checkSecret(formatSecret(seed(1)), 'v1a'), InvalidSecretError);
    assert.throws(() => checkSecret(KEY, 'v1'), InvalidSecretError);
    assert.throws(() => checkSecret('whsk_c2hvcnQ=', 'v1a'), InvalidSecretError);
    assert.throws(() => checkSecret('whsk_!!!', 'v1a'), InvalidSecretError);
    assert.throws(() => formatSigningKey(new Uint8Array(16)), InvalidSecretError);
  });
});

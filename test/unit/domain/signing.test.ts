import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { formatSecret, sign, signatureHeaders, verifySignature } from '#domain/signing.ts';
import { DomainError, InvalidSecretError } from '#domain/errors.ts';

const bytes = (fill: number, length = 32) => new Uint8Array(length).fill(fill);
const SECRET_A = formatSecret(bytes(0xa1));
const SECRET_B = formatSecret(bytes(0xb2));
const SECRET_C = formatSecret(bytes(0xc3));
const ID = 'evt_2Zk9qL1vH3tY8mR4nB6cXw';
const BODY = JSON.stringify({ type: 'invoice.paid', payload: { id: 'in_1', amount: 4200, note: 'déjà vu ✓ 😀' } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The standardwebhooks reference vector (same one the library's own tests use). */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

function verifies(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    return false;
  }
}

describe('formatSecret()', () => {
  it('is whsec_ + standard base64 of the key bytes', () => {
    assert.equal(formatSecret(bytes(0, 24)), 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(formatSecret(bytes(0xff, 24)), 'whsec_////////////////////////////////');
    assert.equal(SECRET_A.slice('whsec_'.length), Buffer.from(bytes(0xa1)).toString('base64'));
  });
  for (const length of [0, 16, 23]) {
    it(`refuses ${length} bytes`, () => assert.throws(() => formatSecret(bytes(1, length)), InvalidSecretError));
  }
});

describe('sign()', () => {
  it('matches the Standard Webhooks reference vector', () => {
    assert.equal(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body), VECTOR.signature);
  });

  it('matches the standardwebhooks library for our own secrets', () => {
    for (const secret of [SECRET_A, SECRET_B]) {
      assert.equal(
        sign(secret, ID, 1_700_000_000, BODY),
        new Webhook(secret).sign(ID, new Date(1_700_000_000_000), BODY),
      );
    }
  });

  it('changes with every signed part', () => {
    const reference = sign(SECRET_A, ID, 1_700_000_000, BODY);
    assert.notEqual(sign(SECRET_B, ID, 1_700_000_000, BODY), reference);
    assert.notEqual(sign(SECRET_A, `${ID}x`, 1_700_000_000, BODY), reference);
    assert.notEqual(sign(SECRET_A, ID, 1_700_000_001, BODY), reference);
    assert.notEqual(sign(SECRET_A, ID, 1_700_000_000, `${BODY} `), reference);
    assert.match(reference, /^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('signs the same on every call, whichever secrets came before (decoded keys are kept per secret)', () => {
    const order = [SECRET_A, SECRET_B, SECRET_A, SECRET_C, SECRET_B, SECRET_A];
    for (const [i, secret] of order.entries()) {
      const ts = 1_700_000_000 + i;
      assert.equal(sign(secret, ID, ts, BODY), new Webhook(secret).sign(ID, new Date(ts * 1000), BODY));
    }
  });
});

describe('signatureHeaders() verified by the standardwebhooks package', () => {
  it('one secret: the three headers, and the receiver verifies the body', () => {
    const ts = nowSeconds();
    const headers = signatureHeaders([SECRET_A], ID, ts, BODY);
    assert.deepEqual(Object.keys(headers).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    assert.equal(headers['webhook-id'], ID);
    assert.equal(headers['webhook-timestamp'], String(ts));
    assert.equal(headers['webhook-signature'], sign(SECRET_A, ID, ts, BODY));
    assert.deepEqual(new Webhook(SECRET_A).verify(BODY, { ...headers }), JSON.parse(BODY));
  });

  it('rotation: both signatures are sent and each secret verifies on its own', () => {
    const ts = nowSeconds();
    const headers = { ...signatureHeaders([SECRET_B, SECRET_A], ID, ts, BODY) };
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    assert.deepEqual(parts, [sign(SECRET_B, ID, ts, BODY), sign(SECRET_A, ID, ts, BODY)]);
    assert.equal(verifies(SECRET_A, BODY, headers), true);
    assert.equal(verifies(SECRET_B, BODY, headers), true);
    assert.equal(verifies(SECRET_C, BODY, headers), false);
  });

  it('three secrets at once still verify with each', () => {
    const headers = { ...signatureHeaders([SECRET_A, SECRET_B, SECRET_C], ID, nowSeconds(), BODY) };
    for (const secret of [SECRET_A, SECRET_B, SECRET_C]) assert.equal(verifies(secret, BODY, headers), true);
  });

  const tampering: ReadonlyArray<readonly [string, (h: Record<string, string>) => [string, Record<string, string>]]> = [
    ['a tampered body', (h) => [BODY.replace('4200', '4201'), h]],
    ['a body with an extra space', (h) => [`${BODY} `, h]],
    ['a re-serialised body', (h) => [JSON.stringify(JSON.parse(BODY), null, 1), h]],
    ['another webhook-id', (h) => [BODY, { ...h, 'webhook-id': 'evt_other' }]],
    ['another timestamp', (h) => [BODY, { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) }]],
    [
      'the signature of another secret',
      (h) => [BODY, { ...h, 'webhook-signature': sign(SECRET_C, ID, Number(h['webhook-timestamp']), BODY) }],
    ],
    ['a v2 label', (h) => [BODY, { ...h, 'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,') }]],
  ];
  for (const [name, tamper] of tampering) {
    it(`${name} fails verification`, () => {
      const headers = { ...signatureHeaders([SECRET_A], ID, nowSeconds(), BODY) };
      assert.equal(verifies(SECRET_A, BODY, headers), true, 'control: the untampered message verifies');
      const [body, changed] = tamper(headers);
      assert.equal(verifies(SECRET_A, body, changed), false);
    });
  }

  it('a fresh timestamp gives a fresh signature over the same body', () => {
    const first = signatureHeaders([SECRET_A], ID, 1_700_000_000, BODY);
    const second = signatureHeaders([SECRET_A], ID, 1_700_000_060, BODY);
    assert.notEqual(first['webhook-signature'], second['webhook-signature']);
    assert.equal(first['webhook-id'], second['webhook-id']);
  });
});

describe('verifySignature()', () => {
  const ts = 1_700_000_000;
  const single = sign(SECRET_A, ID, ts, BODY);
  const rotated = `${sign(SECRET_B, ID, ts, BODY)} ${single}`;
  // [name, secrets, body, header, expected]
  const table: ReadonlyArray<readonly [string, readonly string[], string, string, boolean]> = [
    ['the right secret', [SECRET_A], BODY, single, true],
    ['the wrong secret', [SECRET_B], BODY, single, false],
    ['one of several secrets', [SECRET_C, SECRET_A], BODY, single, true],
    ['a rotated header, old secret', [SECRET_A], BODY, rotated, true],
    ['a rotated header, new secret', [SECRET_B], BODY, rotated, true],
    ['a rotated header, unknown secret', [SECRET_C], BODY, rotated, false],
    ['a tampered body', [SECRET_A], `${BODY}\n`, single, false],
    ['a v2 label', [SECRET_A], BODY, single.replace('v1,', 'v2,'), false],
    ['an empty header', [SECRET_A], BODY, '', false],
    ['a truncated signature', [SECRET_A], BODY, single.slice(0, -2), false],
    ['no secrets', [], BODY, single, false],
  ];
  for (const [name, secrets, body, header, expected] of table) {
    it(`${name} -> ${expected}`, () => assert.equal(verifySignature(secrets, ID, ts, body, header), expected));
  }
});

describe('bad secrets throw InvalidSecretError', () => {
  const good = SECRET_A;
  const table: ReadonlyArray<readonly [string, string]> = [
    ['no prefix', Buffer.from(bytes(1)).toString('base64')],
    ['an upper-case prefix', `WHSEC_${Buffer.from(bytes(1)).toString('base64')}`],
    ['another prefix (a public key)', `whpk_${Buffer.from(bytes(1)).toString('base64')}`],
    ['an empty key', 'whsec_'],
    ['an empty string', ''],
    ['a 16-byte key', `whsec_${Buffer.from(bytes(1, 16)).toString('base64')}`],
    ['a 23-byte key', `whsec_${Buffer.from(bytes(1, 23)).toString('base64')}`],
    ['base64url characters', `whsec_${'A'.repeat(30)}-_${'A'.repeat(8)}`],
    ['characters outside base64', `whsec_${'A'.repeat(40)}!!!!`],
    ['whitespace inside', `whsec_${'A'.repeat(20)} ${'A'.repeat(20)}`],
    ['padding in the middle', `whsec_${'A'.repeat(36)}==${'A'.repeat(20)}`],
  ];
  for (const [name, secret] of table) {
    it(`${name}`, () => {
      const isBad = (error: unknown) => error instanceof InvalidSecretError && error instanceof DomainError;
      assert.throws(() => sign(secret, ID, 1_700_000_000, BODY), isBad);
      assert.throws(() => signatureHeaders([secret], ID, 1_700_000_000, BODY), isBad);
      assert.throws(
        () => signatureHeaders([good, secret], ID, 1_700_000_000, BODY),
        isBad,
        'one bad secret in a rotation',
      );
    });
  }

  it('signing with no secret at all', () => {
    assert.throws(() => signatureHeaders([], ID, 1_700_000_000, BODY), InvalidSecretError);
  });

  it('an unpadded base64 key is accepted, as the standardwebhooks library accepts it', () => {
    const unpadded = formatSecret(bytes(7, 25)).replace(/=+$/, '');
    const headers = { ...signatureHeaders([unpadded], ID, nowSeconds(), BODY) };
    assert.equal(verifies(unpadded, BODY, headers), true);
  });
});

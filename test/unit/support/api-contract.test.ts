import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAnswer } from '#test/api-contract.ts';

const tenantKey = {
  keyId: 'key_a',
  tenantId: 'acme',
  createdAt: '2024-05-01T00:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
};

describe('checkAnswer: integration answers against the OpenAPI document', () => {
  it('accepts an answer its operation documents', () => {
    checkAnswer('DELETE', '/v1/tenants/acme/keys/key_a', 200, tenantKey);
    checkAnswer('GET', '/v1/tenants/acme/keys?x=1', 200, { items: [tenantKey], nextCursor: null });
    checkAnswer('POST', '/v1/events', 400, {
      error: { code: 'invalid_request', message: 'type: a non-empty string is required' },
    });
  });

  it('refuses an undocumented field, a missing one and a wrong type, naming the route', () => {
    assert.throws(
      () => checkAnswer('DELETE', '/v1/tenants/acme/keys/key_a', 200, { ...tenantKey, keyHash: 'x' }),
      /DELETE \/v1\/tenants\/\{tenantId\}\/keys\/\{keyId\} answered 200 with a body its documented schema refuses/,
    );
    const { revokedAt: _r, ...missing } = tenantKey;
    assert.throws(() => checkAnswer('DELETE', '/v1/tenants/acme/keys/key_a', 200, missing), /revokedAt/);
    assert.throws(
      () => checkAnswer('DELETE', '/v1/tenants/acme/keys/key_a', 200, { ...tenantKey, createdAt: 5 }),
      /createdAt/,
    );
  });

  it('refuses a status the operation does not document, and an error body of another shape', () => {
    assert.throws(
      () => checkAnswer('GET', '/health', 201, { status: 'ok' }),
      /GET \/health answered 201, which its OpenAPI operation does not document/,
    );
    assert.throws(() => checkAnswer('POST', '/v1/events', 400, { message: 'bad' }), /refuses/);
    assert.throws(() => checkAnswer('GET', '/v1/nothing-here', 404, 'not json'), /no route/);
    assert.throws(() => checkAnswer('GET', '/v1/nothing-here', 200, {}), /no route in ROUTES matches it/);
  });

  it('leaves 5xx and other statuses alone', () => {
    checkAnswer('GET', '/health', 500, 'whatever');
    checkAnswer('GET', '/health', 304, undefined);
  });
});

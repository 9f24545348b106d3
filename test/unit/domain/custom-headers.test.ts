import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCustomHeaders, MAX_CUSTOM_HEADERS } from '#domain/custom-headers.ts';
import { InvalidHeaderError } from '#domain/errors.ts';

const refusal = (headers: Record<string, string>) => {
  try {
    checkCustomHeaders(headers);
  } catch (error) {
    assert.ok(error instanceof InvalidHeaderError);
    return error.path;
  }
  assert.fail(`${JSON.stringify(headers)} was accepted`);
};

describe('custom headers a subscription sends', () => {
  it('keeps valid ones with lower-cased names', () => {
    assert.deepEqual(checkCustomHeaders({ 'X-Api-Key': 'k 1', Authorization: 'Bearer t' }), {
      'x-api-key': 'k 1',
      authorization: 'Bearer t',
    });
    assert.deepEqual(checkCustomHeaders({}), {});
  });

  it('refuses the signature set, framing and hop-by-hop names, naming the header', () => {
    for (const name of [
      'webhook-id',
      'Webhook-Signature',
      'webhook-anything',
      'Host',
      'content-length',
      'Content-Type',
      'Transfer-Encoding',
      'Connection',
      'Keep-Alive',
      'TE',
      'Trailer',
      'Upgrade',
      'Proxy-Authorization',
    ]) {
      assert.equal(refusal({ [name]: 'x' }), `headers.${name}`, name);
    }
  });

  it('refuses names that are not tokens, values that could split a header, and too many', () => {
    assert.equal(refusal({ 'bad name': 'x' }), 'headers.bad name');
    assert.equal(refusal({ 'x:y': 'x' }), 'headers.x:y');
    assert.equal(refusal({ 'X-A': 'line\r\nX-Evil: 1' }), 'headers.X-A');
    assert.equal(refusal({ 'X-A': '' }), 'headers.X-A');
    assert.equal(refusal({ 'X-A': ' padded' }), 'headers.X-A');
    assert.equal(refusal({ 'X-A': 'é' }), 'headers.X-A');
    assert.equal(refusal({ 'X-A': 'v'.repeat(1025) }), 'headers.X-A');
    assert.equal(refusal({ 'X-A': '1', 'x-a': '2' }), 'headers.x-a');
    assert.equal(
      refusal(Object.fromEntries(Array.from({ length: MAX_CUSTOM_HEADERS + 1 }, (_, i) => [`x-${i}`, 'v']))),
      'headers',
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { localApiType } from '#local/runtime.ts';

describe('HOOKLINE_API_TYPE: the entry the local runtime stands in for', () => {
  it("is the stack's default, a Function URL, when unset or empty", () => {
    assert.equal(localApiType(undefined), 'url');
    assert.equal(localApiType(''), 'url');
  });

  it('takes url and http', () => {
    assert.equal(localApiType('url'), 'url');
    assert.equal(localApiType('http'), 'http');
  });

  it('refuses anything else, naming the variable and the choices', () => {
    for (const value of ['rest', 'URL', 'gateway'])
      assert.throws(
        () => localApiType(value),
        (e: unknown) =>
          e instanceof InvalidEnvironmentError &&
          /HOOKLINE_API_TYPE/.test(e.message) &&
          /'url' or 'http'/.test(e.message),
      );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, ForbiddenTargetError, InvalidRetryPolicyError, InvalidSecretError, InvalidTransitionError } from '#domain/errors.ts';

describe('domain errors', () => {
  // [error, name, message]
  const table: ReadonlyArray<readonly [DomainError, string, string]> = [
    [new DomainError('x'), 'DomainError', 'x'],
    [new InvalidTransitionError('pending', 'replay'), 'InvalidTransitionError', "cannot replay a delivery in state 'pending'"],
    [new InvalidRetryPolicyError('jitter', 'must be between 0 and 1'), 'InvalidRetryPolicyError', 'retryPolicy.jitter must be between 0 and 1'],
    [new InvalidRetryPolicyError('', 'must be an object'), 'InvalidRetryPolicyError', 'retryPolicy must be an object'],
    [new InvalidSecretError('a secret starts with whsec_'), 'InvalidSecretError', 'a secret starts with whsec_'],
    [new ForbiddenTargetError('url must not carry credentials', 'https://u:p@example.com/'), 'ForbiddenTargetError', 'url must not carry credentials'],
  ];
  for (const [error, name, message] of table) {
    it(`${name}: ${message}`, () => {
      assert.ok(error instanceof Error);
      assert.ok(error instanceof DomainError);
      assert.equal(error.name, name);
      assert.equal(error.message, message);
      assert.match(String(error), new RegExp(`^${name}: `));
    });
  }

  it('carry the values they name', () => {
    const transition = new InvalidTransitionError('delivered', 'claim');
    assert.equal(transition.from, 'delivered');
    assert.equal(transition.action, 'claim');
    assert.equal(new InvalidRetryPolicyError('maxAttempts', 'must be a number').field, 'maxAttempts');
    assert.equal(new ForbiddenTargetError('nope', 'ftp://x').target, 'ftp://x');
  });

  it('subclasses are told apart', () => {
    const error: DomainError = new InvalidSecretError('bad');
    assert.equal(error instanceof InvalidTransitionError, false);
    assert.equal(error instanceof ForbiddenTargetError, false);
    assert.equal(error instanceof InvalidRetryPolicyError, false);
  });
});

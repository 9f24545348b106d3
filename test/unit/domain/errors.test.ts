import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArchiveFormatError,
  DomainError,
  ForbiddenTargetError,
  type InputRefusal,
  InvalidPolicyError,
  InvalidRetryPolicyError,
  InvalidSecretError,
  InvalidTransitionError,
} from '#domain/errors.ts';

describe('domain errors', () => {
  // [error, name, message]
  const table: ReadonlyArray<readonly [DomainError, string, string]> = [
    [new DomainError('x'), 'DomainError', 'x'],
    [
      new InvalidTransitionError('pending', 'replay'),
      'InvalidTransitionError',
      "cannot replay a delivery in state 'pending'",
    ],
    [
      new InvalidRetryPolicyError('jitter', 'must be between 0 and 1'),
      'InvalidRetryPolicyError',
      'retryPolicy.jitter must be between 0 and 1',
    ],
    [new InvalidRetryPolicyError('', 'must be an object'), 'InvalidRetryPolicyError', 'retryPolicy must be an object'],
    [new InvalidSecretError('a secret starts with whsec_'), 'InvalidSecretError', 'a secret starts with whsec_'],
    [
      new ForbiddenTargetError('must not carry credentials', 'https://u:p@example.com/'),
      'ForbiddenTargetError',
      'url must not carry credentials',
    ],
    [
      new InvalidPolicyError('replayPolicy', 'windowDays', 'must be a number'),
      'InvalidPolicyError',
      'replayPolicy.windowDays must be a number',
    ],
    [
      new InvalidPolicyError('retentionPolicy', '', 'must be an object'),
      'InvalidPolicyError',
      'retentionPolicy must be an object',
    ],
    [new ArchiveFormatError('line 3 is not JSON'), 'ArchiveFormatError', 'line 3 is not JSON'],
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
    const policy = new InvalidPolicyError('autoPausePolicy', 'afterHours', 'must be a whole number');
    assert.deepEqual([policy.policy, policy.field], ['autoPausePolicy', 'afterHours']);
  });

  // [error, path, rule]: the parts a caller builds its answer from, without reading the message.
  const refusals: ReadonlyArray<readonly [InputRefusal & DomainError, string, string]> = [
    [
      new InvalidRetryPolicyError('maxDelaySeconds', 'must be at least initialDelaySeconds'),
      'retryPolicy.maxDelaySeconds',
      'must be at least initialDelaySeconds',
    ],
    [new InvalidRetryPolicyError('', 'must be an object'), 'retryPolicy', 'must be an object'],
    [
      new ForbiddenTargetError('scheme must be http or https, not ftp', 'ftp://x'),
      'url',
      'scheme must be http or https, not ftp',
    ],
    [
      new InvalidPolicyError('replayPolicy', 'windowDays', 'must be between 1 and 30'),
      'replayPolicy.windowDays',
      'must be between 1 and 30',
    ],
    [new InvalidPolicyError('replayPolicy', '', 'must be an object'), 'replayPolicy', 'must be an object'],
  ];
  for (const [error, path, rule] of refusals) {
    it(`${error.name} refuses ${path} with its rule as data`, () => {
      assert.equal(error.path, path);
      assert.equal(error.rule, rule);
      // The message is the same parts, so logs read the same as before.
      assert.equal(error.message, `${path} ${rule}`);
    });
  }

  it('subclasses are told apart', () => {
    const error: DomainError = new InvalidSecretError('bad');
    assert.equal(error instanceof InvalidTransitionError, false);
    assert.equal(error instanceof ForbiddenTargetError, false);
    assert.equal(error instanceof InvalidRetryPolicyError, false);
    assert.equal(error instanceof InvalidPolicyError, false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';
import { ValidationError } from '#app/errors.ts';
import { parseCreateSubscription, parseUpdateSubscription } from '#app/subscriptions/subscription-request.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import { aSubscription } from '#test/fakes.ts';

const create = (contactEmails: unknown) =>
  parseCreateSubscription(JSON.stringify({ url: 'https://hooks.example.com', contactEmails }), DEFAULT_RETRY_POLICY);
const refused = (run: () => unknown, pattern: RegExp) =>
  assert.throws(
    run,
    (e: unknown) => e instanceof ValidationError && e.field === 'contactEmails' && pattern.test(e.message),
  );

describe('contactEmails: who failure notices go to', () => {
  it('optional; each address once (compared without case, the first spelling kept)', () => {
    assert.equal(
      parseCreateSubscription('{"url":"https://hooks.example.com"}', DEFAULT_RETRY_POLICY).contactEmails,
      undefined,
    );
    assert.deepEqual(create(['Ann@Customer.test', 'bob@customer.test', 'ann@customer.test']).contactEmails, [
      'Ann@Customer.test',
      'bob@customer.test',
    ]);
    assert.deepEqual(create([]).contactEmails, []);
  });
  it('at most 10 addresses, each one address: a 400 naming the field', () => {
    refused(() => create(Array.from({ length: 11 }, (_, i) => `a${i}@b.test`)), /at most 10 email addresses/);
    refused(() => create(['ann@customer.test', 'no-at-sign']), /'no-at-sign' is not an email address/);
    refused(() => create(['a@b.test, c@d.test']), /is not an email address/);
    refused(() => create('a@b.test'), /must be a list/);
    refused(() => create([42]), /'42' is not an email address/);
  });
  it('PATCH may set or remove them (null); the view shows [] when there are none', () => {
    assert.deepEqual(parseUpdateSubscription('{"contactEmails":["ops@customer.test"]}', DEFAULT_RETRY_POLICY), {
      contactEmails: ['ops@customer.test'],
    });
    assert.deepEqual(parseUpdateSubscription('{"contactEmails":null}', DEFAULT_RETRY_POLICY), { contactEmails: null });
    assert.deepEqual(subscriptionView(aSubscription({ id: 'sub_1' })).contactEmails, []);
    assert.deepEqual(subscriptionView(aSubscription({ id: 'sub_1', contactEmails: ['x@y.test'] })).contactEmails, [
      'x@y.test',
    ]);
  });
});

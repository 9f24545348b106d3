import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import { RateLimitedError, ValidationError } from '#app/errors.ts';
import { parseTestEvent } from '#app/subscriptions/subscription-request.ts';
import { sendTestEvent } from '#app/subscriptions/test-event.ts';
import { TEST_EVENT_TYPE } from '#domain/event-types.ts';
import { aSubscription, fakeDeps } from '#test/fakes.ts';
import { InMemoryRateLimiter } from '#test/memory-stores.ts';

const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'psn_1', portal: 'view' };

/** Two test events a minute per subscription, for a tenant: the third is refused. */
const LIMIT = { limit: 2, windowSeconds: 60 };

function seeded() {
  const deps = { ...fakeDeps(), rateLimiter: new InMemoryRateLimiter(), customerReplayLimit: LIMIT };
  deps.subscriptions.items.set(
    'sub_1',
    aSubscription({ id: 'sub_1', tenantId: 'acme', eventTypes: ['invoice.*', 'customer.created'] }),
  );
  return deps;
}

/** The one event the test stored: its type and body as the receiver will get them. */
async function storedEvent(deps: ReturnType<typeof seeded>, eventId: string) {
  const event = await deps.events.get(eventId);
  assert.ok(event, `event ${eventId} is stored`);
  return event;
}

describe('parseTestEvent()', () => {
  it('no body: a hookline.test event with the default payload', () => {
    assert.deepEqual(parseTestEvent(null), { type: TEST_EVENT_TYPE });
    assert.deepEqual(parseTestEvent('  '), { type: TEST_EVENT_TYPE });
  });

  it('keeps the payload as written, byte for byte', () => {
    assert.deepEqual(parseTestEvent('{"type":"invoice.paid","payload":{"total":1.0, "n":[1,2]}}'), {
      type: 'invoice.paid',
      payloadJson: '{"total":1.0, "n":[1,2]}',
    });
    assert.deepEqual(parseTestEvent('{"payload":"just text"}'), { type: TEST_EVENT_TYPE, payloadJson: '"just text"' });
  });

  it('refuses a bad body naming the field, as the API answers it', () => {
    for (const [body, field] of [
      ['{"type":"has space"}', 'type'],
      ['{"type":""}', 'type'],
      ['{"type":5}', 'type'],
      ['{"kind":"x"}', 'kind'],
      ['{"payload": {"a": }', 'body'],
      ['[1]', 'body'],
    ] as const)
      assert.throws(
        () => parseTestEvent(body),
        (e: unknown) => e instanceof ValidationError && e.field === field,
        body,
      );
  });
});

describe('sendTestEvent()', () => {
  it('sends hookline.test with the default message when asked for nothing', async () => {
    const deps = seeded();
    const sent = await sendTestEvent(deps, ACME, 'sub_1');
    const event = await storedEvent(deps, sent.eventId);
    assert.equal(event.type, TEST_EVENT_TYPE);
    assert.match(event.body, /"message":"A test event from Hookline/);
    assert.deepEqual(event.subscriptionIds, ['sub_1']);
  });

  it("sends a chosen type the subscription receives, with the caller's example payload as its data", async () => {
    const deps = seeded();
    const sent = await sendTestEvent(deps, ACME, 'sub_1', { type: 'invoice.paid', payloadJson: '{"total":"9.99"}' });
    const event = await storedEvent(deps, sent.eventId);
    assert.equal(event.type, 'invoice.paid');
    assert.ok(event.body.endsWith(',"data":{"total":"9.99"}}'), event.body);
    assert.ok(event.body.includes('"type":"invoice.paid"'), event.body);
    assert.equal(event.tenantId, 'acme', "the subscription's own tenant's event");
    assert.deepEqual(event.deliveryIds, [sent.deliveryId]);
  });

  it('refuses a type the subscription does not receive with a 400 naming type, storing nothing', async () => {
    const deps = seeded();
    await assert.rejects(
      sendTestEvent(deps, ACME, 'sub_1', { type: 'order.created', payloadJson: '{}' }),
      (e: unknown) =>
        e instanceof ValidationError && e.field === 'type' && /its eventTypes: invoice\.\*/.test(e.message),
    );
    assert.equal(deps.events.items.size, 0);
  });

  it("counts a tenant's test events against the resend limit: over it a 429 naming it, nothing stored; the admin key is not limited", async () => {
    const deps = seeded();
    for (let i = 0; i < LIMIT.limit; i++) await sendTestEvent(deps, ACME, 'sub_1');
    await assert.rejects(
      sendTestEvent(deps, ACME, 'sub_1'),
      (e: unknown) =>
        e instanceof RateLimitedError && /at most 2 replays, retries and test events per 60 s/.test(e.message),
    );
    assert.equal(deps.events.items.size, LIMIT.limit);
    await sendTestEvent(deps, ADMIN, 'sub_1');
    assert.equal(deps.events.items.size, LIMIT.limit + 1);
  });
});

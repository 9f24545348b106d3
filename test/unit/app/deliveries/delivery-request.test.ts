import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '#app/errors.ts';
import { parseDeadLetterQuery, parseDeliveryListQuery } from '#app/deliveries/delivery-request.ts';

/** Refused with a ValidationError naming `field` (the API's 400), its message matching `rule` when given. */
const refuses = (fn: () => unknown, field: string, rule?: RegExp) =>
  assert.throws(
    fn,
    (e: unknown) => e instanceof ValidationError && e.field === field && (!rule || rule.test(e.message)),
    field,
  );

const SUB = 'sub_a1';

describe('delivery list requests', () => {
  it('reads the listing query: subscriptionId, state, eventType, since, until, limit, cursor', () => {
    assert.deepEqual(parseDeliveryListQuery({ subscriptionId: SUB }), { subscriptionId: SUB, limit: 50 });
    assert.deepEqual(
      parseDeliveryListQuery({
        subscriptionId: SUB,
        state: 'failed',
        eventType: 'order.paid',
        since: '2024-05-01T10:00:00Z',
        until: '2024-05-01T12:30:00+02:00',
        limit: '25',
        cursor: 'abc',
      }),
      {
        subscriptionId: SUB,
        state: 'failed',
        eventType: 'order.paid',
        since: '2024-05-01T10:00:00.000Z',
        until: '2024-05-01T10:30:00.000Z',
        limit: 25,
        cursor: 'abc',
      },
    );
  });

  it('reads a bare day as the whole UTC day: since its start, until its end', () => {
    assert.deepEqual(parseDeliveryListQuery({ subscriptionId: SUB, since: '2024-05-01', until: '2024-05-01' }), {
      subscriptionId: SUB,
      since: '2024-05-01T00:00:00.000Z',
      until: '2024-05-01T23:59:59.999Z',
      limit: 50,
    });
  });

  it('takes a range of one instant (since = until)', () => {
    const at = '2024-05-01T10:00:00.000Z';
    assert.deepEqual(parseDeliveryListQuery({ subscriptionId: SUB, since: at, until: at }), {
      subscriptionId: SUB,
      since: at,
      until: at,
      limit: 50,
    });
  });

  it('refuses, naming the field: an unknown state, an event type that cannot be one, an unparseable or impossible time', () => {
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, state: 'lost' }), 'state', /must be one of pending/);
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, state: 'FAILED' }), 'state');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, eventType: 'order paid' }), 'eventType');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, eventType: '' }), 'eventType');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, eventType: 'a'.repeat(257) }), 'eventType');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, since: 'yesterday' }), 'since', /ISO 8601/);
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, since: '2024-02-30' }), 'since');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, since: '2024-05-01T10:00:00' }), 'since', /zone/);
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, until: '1714557600000' }), 'until');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, until: '2024-05-01T24:00:00Z' }), 'until');
  });

  it('refuses an until before since, naming until', () => {
    refuses(
      () => parseDeliveryListQuery({ subscriptionId: SUB, since: '2024-05-02', until: '2024-05-01' }),
      'until',
      /must not be before since/,
    );
    refuses(
      () =>
        parseDeliveryListQuery({
          subscriptionId: SUB,
          since: '2024-05-01T10:00:00.001Z',
          until: '2024-05-01T10:00:00Z',
        }),
      'until',
    );
  });

  it('still requires the subscription, and refuses a bad page size', () => {
    refuses(() => parseDeliveryListQuery({}), 'subscriptionId', /is required/);
    refuses(() => parseDeliveryListQuery({ subscriptionId: 'dlv_x' }), 'subscriptionId');
    refuses(() => parseDeliveryListQuery({ subscriptionId: SUB, limit: '0' }), 'limit');
  });

  it('reads the dead-letter query: subscriptionId optional', () => {
    assert.deepEqual(parseDeadLetterQuery({}), { limit: 50 });
    assert.deepEqual(parseDeadLetterQuery({ subscriptionId: SUB, limit: '5' }), { subscriptionId: SUB, limit: 5 });
  });
});

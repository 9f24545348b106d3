import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '#app/errors.ts';
import { parseEventIdSegment, parseEventListQuery, parseSubscriptionEventsQuery } from '#app/events/event-request.ts';

const refuses = (fn: () => unknown, field: string) =>
  assert.throws(fn, (e: unknown) => e instanceof ValidationError && e.field === field, field);

describe('event requests', () => {
  it('reads an event id from its path segment, percent-escapes decoded, by the publish id rule', () => {
    assert.equal(parseEventIdSegment('inv-1001'), 'inv-1001');
    assert.equal(parseEventIdSegment('order%2F42%3Fx'), 'order/42?x');
    assert.equal(parseEventIdSegment('%7E'.repeat(128)), '~'.repeat(128));
    refuses(() => parseEventIdSegment('%7E'.repeat(129)), 'eventId');
    refuses(() => parseEventIdSegment('a%20b'), 'eventId');
    refuses(() => parseEventIdSegment('caf%C3%A9'), 'eventId');
    refuses(() => parseEventIdSegment('%E0%A4%A'), 'eventId');
  });

  it('reads the event listing query: type, since, limit, cursor', () => {
    assert.deepEqual(parseEventListQuery({}), { limit: 50 });
    assert.deepEqual(parseEventListQuery({ type: 'invoice.paid', since: '2024-05-01', limit: '100', cursor: 'abc' }), {
      type: 'invoice.paid',
      since: '2024-05-01T00:00:00.000Z',
      limit: 100,
      cursor: 'abc',
    });
    assert.deepEqual(parseEventListQuery({ since: '2024-05-01T02:00:00+02:00' }), {
      since: '2024-05-01T00:00:00.000Z',
      limit: 50,
    });
    refuses(() => parseEventListQuery({ type: 'invoice paid' }), 'type');
    refuses(() => parseEventListQuery({ since: 'yesterday' }), 'since');
    refuses(() => parseEventListQuery({ since: '2024-02-30' }), 'since');
    refuses(() => parseEventListQuery({ limit: '0' }), 'limit');
    refuses(() => parseEventListQuery({ limit: '101' }), 'limit');
  });

  it('reads the reconciliation query: after (a cursor) and limit', () => {
    assert.deepEqual(parseSubscriptionEventsQuery({}), { limit: 50 });
    assert.deepEqual(parseSubscriptionEventsQuery({ after: 'xyz', limit: '7' }), { limit: 7, cursor: 'xyz' });
    assert.deepEqual(parseSubscriptionEventsQuery({ after: '' }), { limit: 50 });
    refuses(() => parseSubscriptionEventsQuery({ limit: 'ten' }), 'limit');
  });
});

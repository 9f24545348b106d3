import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

describe('POST /v1/events/batch on the local runtime', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  it('accepts up to 100 events in one request, one result each in order, and delivers every one signed', async () => {
    const sub = await stack.subscribe('/batch', { eventTypes: ['batch.*'] });
    const events = Array.from({ length: 100 }, (_, i) => ({
      ...(i % 2 ? { id: `batch-${i}` } : {}),
      type: 'batch.item',
      payload: { i },
    }));

    const res = await stack.api.post('/v1/events/batch', { events });

    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.items.length, 100);
    assert.deepEqual(
      res.body.items.slice(0, 2).map((r: any) => [r.kind, r.deliveryIds.length]),
      [
        ['accepted', 1],
        ['accepted', 1],
      ],
    );
    assert.equal(res.body.items[1].eventId, 'batch-1');
    await waitFor('all 100 received', () => stack.receiver.on('/batch').length >= 100, 30_000);
    const received = stack.receiver.on('/batch');
    assert.ok(
      received.every((r) => r.verified),
      'every request verified with standardwebhooks',
    );
    assert.deepEqual(new Set(received.map((r) => JSON.parse(r.body).data.i)).size, 100);
    const listed = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&limit=100`);
    assert.equal(listed.body.items.length, 100);
  });

  it('answers a repeat of a batch with the same ids as duplicates and sends nothing again', async () => {
    await stack.subscribe('/batch-again', { eventTypes: ['again.*'] });
    const events = [
      { id: 'again-1', type: 'again.x', payload: {} },
      { id: 'again-2', type: 'again.x', payload: {} },
    ];
    const first = await stack.api.post('/v1/events/batch', { events });
    await waitFor('both received', () => stack.receiver.on('/batch-again').length >= 2, 20_000);

    const again = await stack.api.post('/v1/events/batch', { events });

    assert.deepEqual(
      again.body.items.map((r: any) => r.kind),
      ['duplicate', 'duplicate'],
    );
    assert.deepEqual(
      again.body.items.map((r: any) => r.deliveryIds),
      first.body.items.map((r: any) => r.deliveryIds),
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(stack.receiver.on('/batch-again').length, 2);
  });

  it('refuses a batch with one bad event with a 400 naming it, and stores none of the batch', async () => {
    const sub = await stack.subscribe('/batch-bad', { eventTypes: ['bad.*'] });
    const res = await stack.api.post('/v1/events/batch', {
      events: [
        { id: 'bad-ok', type: 'bad.x', payload: {} },
        { type: 'bad type', payload: {} },
      ],
    });

    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.match(res.body.error.message, /events\[1\]\.type/);
    const listed = await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}`);
    assert.deepEqual(listed.body.items, []);
    const retried = await stack.api.post('/v1/events/batch', {
      events: [{ id: 'bad-ok', type: 'bad.x', payload: {} }],
    });
    assert.equal(retried.body.items[0].kind, 'accepted', 'the good event of the refused batch was never stored');
  });

  it('refuses an empty or oversized batch, naming `events`', async () => {
    for (const body of [
      { events: [] },
      { events: Array.from({ length: 101 }, () => ({ type: 'a', payload: 1 })) },
      {},
    ]) {
      const res = await stack.api.post('/v1/events/batch', body);
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /^events/);
    }
  });
});

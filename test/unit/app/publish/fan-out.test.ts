import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fanOut } from '#app/publish/fan-out.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import type { EventRecord } from '#domain/types.ts';
import { fakeDeps } from '#test/fakes.ts';

const CREATED = '2024-05-01T12:00:00.000Z';
const anEvent = (id: string, subscriptionIds: string[], more: Partial<EventRecord> = {}): EventRecord => ({
  id,
  type: 'order.created',
  body: `{"id":"${id}"}`,
  subscriptionIds,
  deliveryIds: subscriptionIds.map((s) => deliveryIdFor(id, s, CREATED)),
  createdAt: CREATED,
  ...more,
});

describe('fanOut', () => {
  it("enqueues the first message of every delivery of a batch's events in one call, from the stored events alone", async () => {
    const deps = fakeDeps();

    const sent = await fanOut(deps, [anEvent('evt_1', ['sub_a', 'sub_b']), anEvent('evt_2', ['sub_a'])]);

    assert.equal(sent, 3);
    assert.equal(deps.queue.enqueued.length, 1, 'one enqueue for the whole batch: many publishes share its requests');
    assert.deepEqual(
      deps.queue.messages().map((m) => (m.kind === 'fresh' ? [m.eventId, m.subscriptionId, m.deliveryId] : m.kind)),
      [
        ['evt_1', 'sub_a', deliveryIdFor('evt_1', 'sub_a', CREATED)],
        ['evt_1', 'sub_b', deliveryIdFor('evt_1', 'sub_b', CREATED)],
        ['evt_2', 'sub_a', deliveryIdFor('evt_2', 'sub_a', CREATED)],
      ],
    );
    assert.equal(deps.subscriptions.items.size, 0, 'no subscription was needed');
  });

  it("takes a subscription's own deadline and its travelling alone from the event's firstSends, else the defaults", async () => {
    const deps = fakeDeps();
    const event = anEvent('evt_1', ['sub_own', 'sub_plain'], {
      firstSends: { sub_own: { deadlineSeconds: 60, alone: true } },
    });

    await fanOut(deps, [event]);

    const byId = new Map(deps.queue.messages().map((m) => [m.subscriptionId, m]));
    const own = byId.get('sub_own')!;
    const plain = byId.get('sub_plain')!;
    assert.ok(own.kind === 'fresh' && plain.kind === 'fresh');
    assert.equal(own.giveUpAt, '2024-05-01T12:01:00.000Z');
    assert.equal(own.alone, true);
    assert.equal(
      plain.giveUpAt,
      new Date(Date.parse(CREATED) + deps.defaultRetryPolicy.deadlineSeconds * 1000).toISOString(),
    );
    assert.equal(plain.alone, undefined);
  });

  it('sends nothing for events nobody subscribed to, and fails the batch when the queue does', async () => {
    const deps = fakeDeps();
    assert.equal(await fanOut(deps, [anEvent('evt_1', [])]), 0);
    assert.equal(deps.queue.enqueued.length, 0);

    deps.queue.enqueue = async () => {
      throw new Error('SQS unavailable');
    };
    await assert.rejects(fanOut(deps, [anEvent('evt_2', ['sub_a'])]), /SQS unavailable/);
  });
});

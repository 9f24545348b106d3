import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publish, publishBatch, webhookBody } from '#app/publish/publish.ts';
import { parsePublishRequest } from '#app/publish/publish-request.ts';
import { deliveryIdFor, formatId } from '#domain/ids.ts';
import type { EventRecord } from '#domain/types.ts';
import { aSubscription, FakeClock, fakeDeps, fanOutStored, type FakeDeps } from '#test/fakes.ts';

const NOW = '2024-05-01T12:00:00.000Z';

function withSubscriptions(deps: FakeDeps, ...subs: Parameters<typeof aSubscription>[0][]): void {
  for (const s of subs) deps.subscriptions.items.set(s.id, aSubscription(s));
}

describe('publish', () => {
  it('stores the event once and enqueues one delivery per matching subscription, writing no delivery row', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a', eventTypes: ['invoice.*'] }, { id: 'sub_b', eventTypes: ['invoice.paid'] });

    const result = await publish(deps, { id: 'evt_1', type: 'invoice.paid', payloadJson: '{"amount":5}' });

    const ids = [deliveryIdFor('evt_1', 'sub_a', NOW), deliveryIdFor('evt_1', 'sub_b', NOW)];
    assert.deepEqual(result, { kind: 'accepted', eventId: 'evt_1', deliveryIds: ids });
    assert.deepEqual(deps.events.items.get('evt_1'), {
      id: 'evt_1',
      type: 'invoice.paid',
      body: '{"id":"evt_1","type":"invoice.paid","timestamp":"2024-05-01T12:00:00.000Z","data":{"amount":5}}',
      subscriptionIds: ['sub_a', 'sub_b'],
      deliveryIds: ids,
      createdAt: NOW,
    });
    // The first attempt writes the row (send.ts); until then it is read from the batch's manifest.
    assert.equal(deps.deliveries.items.size, 0);
    const body = deps.events.items.get('evt_1')!.body;
    const carried = {
      eventId: 'evt_1',
      eventType: 'invoice.paid',
      createdAt: NOW,
      giveUpAt: '2024-05-04T12:00:00.000Z',
      body,
    };
    await fanOutStored(deps);
    assert.deepEqual(deps.queue.messages(), [
      { kind: 'fresh', deliveryId: ids[0], subscriptionId: 'sub_a', ...carried },
      { kind: 'fresh', deliveryId: ids[1], subscriptionId: 'sub_b', ...carried },
    ]);
    assert.equal(deps.metrics.counts.EventsPublished, 1);
  });

  it('skips subscriptions whose event types do not match', async () => {
    const deps = fakeDeps();
    withSubscriptions(
      deps,
      { id: 'sub_a', eventTypes: ['user.*'] },
      { id: 'sub_b', eventTypes: ['invoice.created'] },
      { id: 'sub_c', eventTypes: ['*'] },
    );

    const result = await publish(deps, { id: 'evt_1', type: 'invoice.paid', payloadJson: '{}' });

    assert.deepEqual(result.deliveryIds, [deliveryIdFor('evt_1', 'sub_c', NOW)]);
    await fanOutStored(deps);
    assert.deepEqual(
      deps.queue.messages().map((m) => m.subscriptionId),
      ['sub_c'],
    );
  });

  it('skips disabled subscriptions but sends deliveries for paused ones (they wait, never skip)', async () => {
    const deps = fakeDeps();
    withSubscriptions(
      deps,
      { id: 'sub_on' },
      { id: 'sub_paused', state: 'paused' },
      { id: 'sub_off', state: 'disabled' },
    );

    const result = await publish(deps, { id: 'evt_1', type: 'a.b', payloadJson: '{}' });

    assert.deepEqual(result.deliveryIds, [
      deliveryIdFor('evt_1', 'sub_on', NOW),
      deliveryIdFor('evt_1', 'sub_paused', NOW),
    ]);
    assert.deepEqual(deps.events.items.get('evt_1')!.subscriptionIds, ['sub_on', 'sub_paused']);
    await fanOutStored(deps);
    assert.deepEqual(
      deps.queue.messages().map((m) => m.subscriptionId),
      ['sub_on', 'sub_paused'],
    );
  });

  it('marks the messages of a rate-limited subscription to travel alone; others may share a message', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_free' }, { id: 'sub_limited', rateLimitPerSecond: 20 });

    await publish(deps, { id: 'evt_1', type: 'a.b', payloadJson: '{}' });

    await fanOutStored(deps);
    assert.deepEqual(
      deps.queue.messages().map((m) => [m.subscriptionId, m.alone ?? false]),
      [
        ['sub_free', false],
        ['sub_limited', true],
      ],
    );
  });

  it('takes the deadline from the subscription policy, else the default policy', async () => {
    const deps = fakeDeps({
      defaultRetryPolicy: {
        initialDelaySeconds: 10,
        multiplier: 2,
        maxDelaySeconds: 60,
        jitter: 0,
        deadlineSeconds: 600,
      },
    });
    withSubscriptions(
      deps,
      {
        id: 'sub_own',
        retryPolicy: { initialDelaySeconds: 1, multiplier: 2, maxDelaySeconds: 10, jitter: 0, deadlineSeconds: 60 },
      },
      { id: 'sub_default' },
    );

    await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{}' });

    // The subscription's own deadline travels on the stored event (firstSends), read by the fan-out alone.
    assert.deepEqual(deps.events.items.get('evt_1')?.firstSends, { sub_own: { deadlineSeconds: 60 } });
    await fanOutStored(deps);
    const giveUpAt = new Map(
      deps.queue.messages().map((m) => [m.subscriptionId, m.kind === 'fresh' ? m.giveUpAt : undefined]),
    );
    assert.equal(giveUpAt.get('sub_own'), '2024-05-01T12:01:00.000Z');
    assert.equal(giveUpAt.get('sub_default'), '2024-05-01T12:10:00.000Z');
  });

  it('gives an event without an id a fresh evt_ id from the clock', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' });
    const expectedBytes = new FakeClock().randomBytes(16);

    const result = await publish(deps, { type: 'a', payloadJson: 'null' });

    assert.equal(result.eventId, formatId('evt', expectedBytes));
    assert.match(result.eventId, /^evt_[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(result.deliveryIds, [deliveryIdFor(result.eventId, 'sub_a', NOW)]);
  });

  it('accepts an event no subscription wants: stored, nothing sent', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a', eventTypes: ['user.created'] });

    const result = await publish(deps, { id: 'evt_1', type: 'invoice.paid', payloadJson: '{}' });

    assert.deepEqual(result, { kind: 'accepted', eventId: 'evt_1', deliveryIds: [] });
    assert.equal(deps.events.items.size, 1);
    await fanOutStored(deps);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('is idempotent on the id: a repeat returns the original deliveries and sends nothing new', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' }, { id: 'sub_b' });
    const first = await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{"v":1}' });
    deps.clock.advance(60_000);
    withSubscriptions(deps, { id: 'sub_late' });

    const again = await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{"v":1}' });

    assert.deepEqual(again, { kind: 'duplicate', eventId: 'evt_1', deliveryIds: first.deliveryIds });
    await fanOutStored(deps);
    assert.equal(deps.queue.messages().length, 2, "the first publish's two, none for sub_late");
    assert.match(deps.events.items.get('evt_1')!.body, /"data":\{"v":1\}/);
    assert.equal(deps.metrics.counts.EventsPublished, 1);
  });

  it('answers another type or payload under a stored id as a conflict: nothing stored, nothing sent', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' });
    const first = await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{"v":1}' });
    deps.clock.advance(60_000);

    for (const other of [
      { type: 'a', payloadJson: '{"v":2}' },
      { type: 'a', payloadJson: '{ "v":1}' },
      { type: 'b', payloadJson: '{"v":1}' },
    ]) {
      assert.deepEqual(
        await publish(deps, { id: 'evt_1', ...other }),
        { kind: 'conflict', eventId: 'evt_1', deliveryIds: first.deliveryIds },
        JSON.stringify(other),
      );
    }
    assert.deepEqual(
      await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{"v":1}' }),
      { kind: 'duplicate', eventId: 'evt_1', deliveryIds: first.deliveryIds },
      'the same event a minute later',
    );
    await fanOutStored(deps);
    assert.equal(deps.queue.messages().length, 1);
    assert.match(deps.events.items.get('evt_1')!.body, /"data":\{"v":1\}/);
    assert.equal(deps.metrics.counts.EventsPublished, 1);
  });

  it("a repeat sends nothing even when the first try stopped half-way: its manifest is the sweeper's to finish", async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' }, { id: 'sub_b' });
    await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{}' });
    await fanOutStored(deps);
    deps.queue.enqueued.length = 0;
    let reads = 0;
    deps.events.get = async () => {
      reads++;
      return undefined;
    };

    const again = await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{}' });

    assert.equal(again.kind, 'duplicate');
    await fanOutStored(deps);
    assert.deepEqual(deps.queue.messages(), []);
    assert.equal(reads, 0, 'the conditional put is the idempotency check: nothing is read before it');
  });

  it('writes a manifest of the batch (events and deliveries) before the events, and enqueues nothing itself', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' });
    const seen: string[] = [];
    const put = deps.ingestManifests.put.bind(deps.ingestManifests);
    deps.ingestManifests.put = async (m) => {
      seen.push(`manifest ${m.eventIds.join(',')} (events stored: ${deps.events.items.size})`);
      await put(m);
    };

    await publishBatch(deps, [
      { id: 'evt_1', type: 'a', payloadJson: '{}' },
      { id: 'evt_2', type: 'a', payloadJson: '{}' },
    ]);

    assert.deepEqual(seen, ['manifest evt_1,evt_2 (events stored: 0)']);
    assert.deepEqual(
      [...deps.ingestManifests.items.values()].map((m) => m.deliveryIds),
      [[deliveryIdFor('evt_1', 'sub_a', NOW), deliveryIdFor('evt_2', 'sub_a', NOW)]],
    );
    assert.equal(deps.queue.enqueued.length, 0, 'storing is the hand-off: the stream brings the events to the fan-out');
    assert.deepEqual(
      deps.events.stream.map((e) => e.id),
      ['evt_1', 'evt_2'],
    );
    assert.equal(await fanOutStored(deps), 2);
    assert.equal(deps.queue.enqueued.length, 1, "one enqueue for the stream's whole batch");
  });

  it("writes the manifest of a batch nobody subscribes to as well: it is the event log, with each event's type and its events' TTL", async () => {
    const deps = fakeDeps();

    await publishBatch(deps, [
      { id: 'evt_1', type: 'a', payloadJson: '{}' },
      { id: 'evt_2', type: 'b', payloadJson: '{}' },
    ]);

    const manifests = [...deps.ingestManifests.items.values()];
    assert.deepEqual(
      manifests.map((m) => [m.eventIds, m.eventTypes, m.deliveryIds, m.createdAt]),
      [[['evt_1', 'evt_2'], ['a', 'b'], [], NOW]],
    );
    assert.equal(manifests[0]!.expiresAt, deps.events.expiresAt.get('evt_1'), 'the manifest goes when its events go');
    assert.match(manifests[0]!.key, /^2024-05-01T12:00:00\.000Z#[A-Za-z0-9_-]+$/);
  });

  it("keeps each event from its last delivery's deadline for the delivered retention and a day; its batch's manifest as long as the longest", async () => {
    const deps = fakeDeps();
    const week = 7 * 86_400;
    withSubscriptions(
      deps,
      { id: 'sub_a', eventTypes: ['a'] },
      { id: 'sub_b', eventTypes: ['a'], retryPolicy: { ...deps.defaultRetryPolicy, deadlineSeconds: week } },
      { id: 'sub_c', eventTypes: ['b'] },
    );

    await publishBatch(deps, [
      { id: 'evt_1', type: 'a', payloadJson: '{}' },
      { id: 'evt_2', type: 'b', payloadJson: '{}' },
      { id: 'evt_3', type: 'nobody', payloadJson: '{}' },
    ]);

    const at = Date.parse(NOW) / 1000;
    const day = 86_400;
    const kept = deps.retention.deliveredDays + 1;
    assert.equal(deps.events.expiresAt.get('evt_1'), at + week + kept * day, "sub_b's week, the longer deadline");
    assert.equal(deps.events.expiresAt.get('evt_2'), at + 3 * day + kept * day, 'the default 3-day deadline');
    assert.equal(deps.events.expiresAt.get('evt_3'), at + kept * day, 'no delivery: from its creation');
    const [manifest] = [...deps.ingestManifests.items.values()];
    assert.equal(manifest!.expiresAt, at + week + kept * day);
  });

  it('stores nothing when its manifest landed too late for the sweeper to be sure to check it (a stalled process)', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' });
    const put = deps.ingestManifests.put.bind(deps.ingestManifests);
    deps.ingestManifests.put = async (m) => {
      await put(m);
      deps.clock.advance(31_000);
    };

    await assert.rejects(publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{}' }), /publish stalled 31000 ms/);

    assert.equal(deps.events.items.size, 0);
    assert.equal(deps.deliveries.items.size, 0);
    await fanOutStored(deps);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('answers each event of a batch in order, a duplicate within it included', async () => {
    const deps = fakeDeps();
    withSubscriptions(deps, { id: 'sub_a' });
    await publish(deps, { id: 'evt_seen', type: 'a', payloadJson: '{}' });

    const results = await publishBatch(deps, [
      { id: 'evt_new', type: 'a', payloadJson: '{}' },
      { id: 'evt_seen', type: 'a', payloadJson: '{}' },
    ]);

    assert.deepEqual(
      results.map((r) => [r.kind === 'refused' ? undefined : r.eventId, r.kind]),
      [
        ['evt_new', 'accepted'],
        ['evt_seen', 'duplicate'],
      ],
    );
    const second = results[1]!;
    assert.ok(second.kind === 'duplicate');
    assert.deepEqual(second.deliveryIds, [deliveryIdFor('evt_seen', 'sub_a', NOW)]);
  });

  it('treats losing the putIfAbsent race as a duplicate of the stored event', async () => {
    const stored: EventRecord = {
      id: 'evt_1',
      type: 'a',
      body: webhookBody('evt_1', 'a', NOW, '{}'),
      subscriptionIds: ['sub_a'],
      deliveryIds: [deliveryIdFor('evt_1', 'sub_a', NOW)],
      createdAt: NOW,
    };
    const deps = fakeDeps();
    deps.events.items.set('evt_1', stored);
    withSubscriptions(deps, { id: 'sub_a' }, { id: 'sub_b' });

    const result = await publish(deps, { id: 'evt_1', type: 'a', payloadJson: '{}' });

    assert.deepEqual(result, { kind: 'duplicate', eventId: 'evt_1', deliveryIds: stored.deliveryIds });
    await fanOutStored(deps);
    assert.deepEqual(deps.queue.messages(), []);
    assert.equal(deps.metrics.counts.EventsPublished, undefined);
  });

  it("stores the payload's source text as data, byte for byte, inside Hookline's envelope", async () => {
    const deps = fakeDeps();
    const payload = '{ "b" : 1.0,\n "a":[1e2,-0,"\\u00e9"], "n":9007199254740992 }';

    await publish(deps, parsePublishRequest(`{"id":"evt_1","type":"a","payload":${payload}}`));

    const body = deps.events.items.get('evt_1')!.body;
    assert.equal(body, `{"id":"evt_1","type":"a","timestamp":"${NOW}","data":${payload}}`);
    assert.deepEqual(JSON.parse(body).data, JSON.parse(payload));
  });
});

describe('webhookBody', () => {
  it('escapes the envelope fields it serialises and splices the payload text in unchanged', () => {
    const body = webhookBody('evt_"1"', 'a.b', NOW, '[1.0, 1e2]');
    assert.equal(body, `{"id":"evt_\\"1\\"","type":"a.b","timestamp":"${NOW}","data":[1.0, 1e2]}`);
    assert.deepEqual(JSON.parse(body), { id: 'evt_"1"', type: 'a.b', timestamp: NOW, data: [1, 100] });
  });
});

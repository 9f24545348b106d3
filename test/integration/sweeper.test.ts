import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetQueueAttributesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deliveryKey } from '#adapters/delivery-keys.ts';
import { DynamoDbDeliveryStore } from '#adapters/dynamodb-delivery-store.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe('sweeper: the safety net behind the queue', () => {
  let stack: LocalStack;
  let store: DynamoDbDeliveryStore;
  before(async () => {
    // A 1 s grace, so a run of the sweeper acts at once (every message older than it reads its row first).
    stack = await startLocalStack({ env: { HOOKLINE_SWEEP_GRACE_SECONDS: '1' } });
    // The runtime's own name for the table: it may carry a HOOKLINE_RESOURCE_PREFIX.
    store = new DynamoDbDeliveryStore(
      documentClient(stack.runtime.clients.dynamodb),
      stack.runtime.env.DELIVERIES_TABLE!,
    );
  });
  after(() => stack.stop());

  const purgeDeliveryQueue = () =>
    stack.runtime.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: stack.runtime.queues.urls.delivery }));
  const states = async (ids: readonly string[]) => (await store.getMany(ids)).map((d) => d.state);
  /**
   * Purges the queue once each delivery's first attempt is recorded and its retry sent: the
   * received messages are deleted only after their retries' sends (gathered for RETRY_GATHER_MS),
   * so nothing visible or in flight, and something delayed, means every retry is in the queue.
   */
  const purgeOnceRetriesSent = async (ids: readonly string[]) => {
    await waitFor(
      'first attempts recorded',
      async () => (await store.getMany(ids)).filter((d) => d.attempts === 1).length === ids.length,
    );
    await waitFor('retries sent, first messages deleted', async () => {
      const out = await stack.runtime.clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: stack.runtime.queues.urls.delivery,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      const a = out.Attributes ?? {};
      const waiting = Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
      return waiting === 0 && Number(a.ApproximateNumberOfMessagesDelayed) > 0;
    });
    await purgeDeliveryQueue();
  };

  it('ends with every delivery terminal after the delivery queue is purged mid-run', async () => {
    stack.receiver.script(
      '/purge',
      Array.from({ length: 30 }, () => ({ status: 503 })),
      { status: 200 },
    );
    await stack.subscribe('/purge', {
      eventTypes: ['purge.test'],
      retryPolicy: { initialDelaySeconds: 3, multiplier: 1, maxDelaySeconds: 3, jitter: 0, deadlineSeconds: 120 },
    });
    const ids = (await Promise.all(Array.from({ length: 30 }, (_, i) => stack.publish('purge.test', { i })))).map(
      (r) => r.deliveryIds[0]!,
    );
    await purgeOnceRetriesSent(ids);

    // With their messages gone, nothing moves on its own.
    await new Promise((r) => setTimeout(r, 5000));
    assert.deepEqual(new Set(await states(ids)), new Set(['pending']));
    assert.equal(stack.receiver.on('/purge').length, 30);

    await waitFor(
      'every delivery terminal after sweeping',
      async () => {
        await stack.runtime.runSchedule('sweeper');
        return (await states(ids)).every((s) => s === 'delivered');
      },
      30_000,
      1000,
    );
    const received = new Set(
      stack.receiver
        .on('/purge')
        .filter((r) => r.verified)
        .map((r) => r.webhookId),
    );
    assert.equal(received.size, 30, 'every event reached the receiver');
  });

  it('releases a row an earlier version left claimed (in_flight, its lease run out) and delivers it', async () => {
    stack.receiver.script('/crashed', [{ status: 503 }], { status: 200 });
    await stack.subscribe('/crashed', {
      eventTypes: ['crashed.test'],
      retryPolicy: { initialDelaySeconds: 60, multiplier: 1, maxDelaySeconds: 60, jitter: 0, deadlineSeconds: 600 },
    });
    const id = (await stack.publish('crashed.test', {})).deliveryIds[0]!;
    const pending = await waitFor('first attempt recorded', async () => {
      const d = await store.get(id);
      return d?.state === 'pending' && d.attempts === 1 ? d : undefined;
    });
    await purgeDeliveryQueue();
    // An earlier version's sender claimed the delivery and died: in_flight, its lease run out. This version never writes in_flight.
    const now = Date.now();
    await documentClient(stack.runtime.clients.dynamodb).send(
      new UpdateCommand({
        TableName: stack.runtime.env.DELIVERIES_TABLE!,
        Key: deliveryKey(id)!,
        UpdateExpression: 'SET #state = :inFlight, #lease = :lease, #next = :next ADD #seq :one',
        ConditionExpression: '#seq = :seq',
        ExpressionAttributeNames: {
          '#state': 'state',
          '#lease': 'leaseUntil',
          '#next': 'nextAttemptAt',
          '#seq': 'attemptSeq',
        },
        ExpressionAttributeValues: {
          ':inFlight': 'in_flight',
          ':lease': iso(now - 5_000),
          ':next': iso(now - 10_000),
          ':one': 1,
          ':seq': pending.attemptSeq,
        },
      }),
    );
    assert.equal((await store.get(id))?.state, 'in_flight');

    await stack.runtime.runSchedule('sweeper');
    const d = await stack.waitForState(id, ['delivered']);
    assert.equal(d.attemptLog.at(-1).status, 200);
    assert.equal(stack.receiver.on('/crashed').length, 2);
  });

  it('expires a pending delivery whose deadline passed while its message was lost', async () => {
    stack.receiver.script('/late', [], { status: 500 });
    await stack.subscribe('/late', {
      eventTypes: ['late.test'],
      retryPolicy: { initialDelaySeconds: 2, multiplier: 1, maxDelaySeconds: 2, jitter: 0, deadlineSeconds: 4 },
    });
    const id = (await stack.publish('late.test', {})).deliveryIds[0]!;
    await purgeOnceRetriesSent([id]);
    const before = await store.get(id);
    assert.equal(before?.state, 'pending');
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(before!.giveUpAt) - Date.now()) + 1500));
    await stack.runtime.runSchedule('sweeper');
    const d = await stack.delivery(id);
    assert.equal(d.state, 'expired');
    assert.match(d.lastError, /retry deadline .* passed/);
    const dl = await stack.api.get('/v1/dead-letters');
    assert.ok(dl.body.items.some((i: any) => i.id === id));
  });

  it('leaves alone what is not overdue: a sweep right after publishing changes nothing', async () => {
    stack.receiver.script('/calm', [], { status: 200 });
    await stack.subscribe('/calm', { eventTypes: ['calm.test'] });
    const { deliveryIds } = await stack.publish('calm.test', {});
    await stack.waitForState(deliveryIds[0]!, ['delivered']);
    await stack.runtime.runSchedule('sweeper');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(stack.receiver.on('/calm').length, 1);
  });
});

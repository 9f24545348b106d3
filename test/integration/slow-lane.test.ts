import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

interface SqsSend {
  readonly queueUrl?: string;
  readonly bodies: readonly string[];
}

/**
 * The slow lane on the real local runtime: an endpoint whose attempt goes unanswered past the
 * threshold is marked, its next delivery travels through the slow lane's queue and still
 * arrives signed, and another subscription's deliveries stay in the main lane.
 */
describe('slow endpoints take the slow lane', () => {
  let stack: LocalStack;
  const sends: SqsSend[] = [];
  before(async () => {
    // The sender's timeout is 2 s here (local-stack.ts), so an attempt unanswered for 1 s is slow.
    stack = await startLocalStack();
    stack.runtime.clients.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string; Entries?: { MessageBody?: string }[]; MessageBody?: string };
        if (/^SendMessage/.test(String(context.commandName)))
          sends.push({
            queueUrl: input.QueueUrl,
            bodies: input.Entries?.map((e) => e.MessageBody ?? '') ?? [input.MessageBody ?? ''],
          });
        return next(args);
      },
      { step: 'initialize', name: 'recordSends' },
    );
  });
  after(() => stack.stop());

  const sentTo = (queueUrl: string, deliveryId: string) =>
    sends.filter((s) => s.queueUrl === queueUrl && s.bodies.some((b) => b.includes(deliveryId))).length;

  it('marks a subscription whose endpoint is slow, and sends its next delivery through the slow lane', async () => {
    const slowUrl = stack.runtime.env.SLOW_DELIVERY_QUEUE_URL!;
    const mainUrl = stack.runtime.env.DELIVERY_QUEUE_URL!;
    assert.ok(slowUrl && slowUrl !== mainUrl, 'the runtime has a slow lane of its own');
    // Answers its first request after 1.5 s (slow, inside the timeout), then at once.
    stack.receiver.script('/slow', [{ status: 200, delayMs: 1500 }], { status: 200 });
    const slow = await stack.subscribe('/slow', { eventTypes: ['lane.test'] });
    await stack.subscribe('/fast', { eventTypes: ['lane.test'] });

    const first = await stack.publish('lane.test', { n: 1 });
    const firstSlow = await stack.deliveryIdOf(first.eventId, slow.id);
    await stack.waitForState(firstSlow, ['delivered']);
    // The mark is on the subscription's row, and its health says so: why its latency may be higher.
    const row = await DynamoDBDocumentClient.from(stack.runtime.clients.dynamodb).send(
      new GetCommand({ TableName: stack.runtime.env.SUBSCRIPTIONS_TABLE, Key: { id: slow.id } }),
    );
    const slowUntil = row.Item?.slowUntil as string | undefined;
    assert.ok(slowUntil && Date.parse(slowUntil) > Date.now(), `marked slow: ${slowUntil}`);
    const health = await stack.api.get(`/v1/subscriptions/${slow.id}/stats`);
    assert.equal(health.status, 200);
    assert.equal(health.body.slowLaneUntil, slowUntil);

    const second = await stack.publish('lane.test', { n: 2 });
    const secondSlow = await stack.deliveryIdOf(second.eventId, slow.id);
    const delivered = await stack.waitForState(secondSlow, ['delivered']);
    assert.equal(delivered.attempts, 1, 'attempted once, in the slow lane');
    assert.equal(sentTo(slowUrl, secondSlow), 1, 'sent on to the slow lane');
    assert.equal(sentTo(slowUrl, firstSlow), 0, 'the delivery that showed it slow was not moved');

    const fastId = (await stack.api.get('/v1/subscriptions')).body.items.find((s: { url: string }) =>
      s.url.endsWith('/fast'),
    ).id;
    const secondFast = await stack.deliveryIdOf(second.eventId, fastId);
    await stack.waitForState(secondFast, ['delivered']);
    assert.equal(sentTo(slowUrl, secondFast), 0, 'the fast endpoint stays in the main lane');
    assert.equal((await stack.api.get(`/v1/subscriptions/${fastId}/stats`)).body.slowLaneUntil, null);
    // Every request the receiver got is signed and verifies with standardwebhooks.
    const requests = stack.receiver.distinct('/slow');
    assert.equal(requests.length, 2);
    assert.ok(requests.every((r) => r.verified));
  });
});

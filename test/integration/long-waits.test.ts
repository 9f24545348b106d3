import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Waits longer than this are not spent in flight: shortened from 60 s so a test sees it in seconds. */
const IN_FLIGHT_WAIT_SECONDS = 1;

interface SqsCall {
  readonly command: string;
  readonly input: {
    readonly QueueUrl?: string;
    readonly Entries?: ReadonlyArray<{ readonly MessageBody?: string; readonly DelaySeconds?: number }>;
  };
}

describe('long waits travel as delayed messages, never in flight', () => {
  let stack: LocalStack;
  const calls: SqsCall[] = [];
  let deliveryQueueUrl: string;
  before(async () => {
    stack = await startLocalStack({ env: { HOOKLINE_IN_FLIGHT_WAIT_SECONDS: String(IN_FLIGHT_WAIT_SECONDS) } });
    deliveryQueueUrl = stack.runtime.env.DELIVERY_QUEUE_URL!;
    // Every SQS call the runtime makes, to tell a visibility change from a delayed send.
    stack.runtime.clients.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        calls.push({ command: String(context.commandName), input: args.input as SqsCall['input'] });
        return next(args);
      },
      { step: 'initialize', name: 'recordCalls' },
    );
  });
  after(() => stack.stop());

  const onDeliveryQueue = (command: string) =>
    calls.filter((c) => c.command === command && c.input.QueueUrl === deliveryQueueUrl);
  const sentFor = (deliveryId: string) =>
    onDeliveryQueue('SendMessageBatchCommand')
      .flatMap((c) => c.input.Entries ?? [])
      .filter((e) => e.MessageBody?.includes(deliveryId));

  it('a retry waiting longer than the in-flight bound: sent again with the delay, its message deleted, attempted once due', async () => {
    stack.receiver.script('/waits', [{ status: 503 }], { status: 200 });
    await stack.subscribe('/waits', {
      eventTypes: ['wait.test'],
      retryPolicy: { initialDelaySeconds: 3, multiplier: 1, maxDelaySeconds: 3, jitter: 0, deadlineSeconds: 60 },
    });
    const visibilityBefore = onDeliveryQueue('ChangeMessageVisibilityCommand').length;

    const [id] = (await stack.publish('wait.test', { n: 1 })).deliveryIds;
    const d = await stack.waitForState(id!, ['delivered'], 20_000);

    assert.deepEqual(
      d.attemptLog.map((a: { status: number }) => a.status),
      [503, 200],
    );
    const [first, second] = d.attemptLog as Array<{ startedAt: string; nextAttemptAt?: string }>;
    assert.ok(
      Date.parse(second!.startedAt) - Date.parse(first!.startedAt) >= 3000,
      `the retry waited its 3 s (${first!.startedAt} → ${second!.startedAt})`,
    );
    const resent = sentFor(id!).filter((e) => (e.DelaySeconds ?? 0) > 0);
    assert.deepEqual(
      resent.map((e) => e.DelaySeconds),
      [3],
      'one delayed message carried the wait',
    );
    assert.deepEqual(
      [JSON.parse(resent[0]!.MessageBody!).k, JSON.parse(resent[0]!.MessageBody!).attemptSeq],
      ['retry', 1],
      "the retry's message: it carries the row the first attempt wrote",
    );
    assert.equal(onDeliveryQueue('ChangeMessageVisibilityCommand').length, visibilityBefore, 'no wait spent in flight');
  });

  it("a link of a long wait's chain is sent on until its notBefore, then settled and deleted", async () => {
    const deliveryId = 'dlv_chainlinkxxxxxxxxxxx';
    const notBeforeMs = Date.now() + 2500;
    await stack.runtime.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: deliveryQueueUrl,
        MessageBody: JSON.stringify({
          deliveryId,
          subscriptionId: 'sub_none',
          notBefore: new Date(notBeforeMs).toISOString(),
        }),
      }),
    );

    // Sent on with the rest of its wait; once due, an unknown delivery is done with and the message deleted.
    await waitFor('the chain link sent on', () => sentFor(deliveryId).length > 0, 10_000);
    const [link] = sentFor(deliveryId);
    assert.ok(
      link!.DelaySeconds === 2 || link!.DelaySeconds === 3,
      `the rest of the wait, in whole seconds: ${link!.DelaySeconds}`,
    );
    assert.equal(JSON.parse(link!.MessageBody!).notBefore, undefined, 'the last stretch needs no notBefore');
    await waitFor(
      'the delivery queue to be empty',
      async () => {
        const out = await stack.runtime.clients.sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: deliveryQueueUrl,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
              'ApproximateNumberOfMessagesDelayed',
            ],
          }),
        );
        const a = out.Attributes ?? {};
        return (
          Date.now() > notBeforeMs &&
          Number(a.ApproximateNumberOfMessages) +
            Number(a.ApproximateNumberOfMessagesNotVisible) +
            Number(a.ApproximateNumberOfMessagesDelayed) ===
            0
        );
      },
      15_000,
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { deliveryIdFor } from '#domain/ids.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

describe('publishing through the SQS ingest queue', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  const send = (body: string) =>
    stack.runtime.clients.sqs.send(new SendMessageCommand({ QueueUrl: stack.runtime.queues.urls.ingest, MessageBody: body }));

  it('ingests a message like POST /v1/events and delivers it, once per event id', async () => {
    stack.receiver.script('/sqs', [], { status: 200 });
    const sub = await stack.subscribe('/sqs', { eventTypes: ['sqs.test'] });
    const message = JSON.stringify({ id: 'sqs-evt-1', type: 'sqs.test', payload: { via: 'sqs' } });
    await send(message);
    await send(message); // a producer retry: same id, nothing new sent
    const d = await stack.waitForState(deliveryIdFor('sqs-evt-1', sub.id), ['delivered']);
    assert.equal(JSON.parse(d.body).data.via, 'sqs');
    await new Promise((r) => setTimeout(r, 2000));
    const received = stack.receiver.on('/sqs');
    assert.equal(received.length, 1);
    assert.equal(received[0]!.verified, true);
  });

  it('does not drop an invalid message: it stays on the queue, headed for the redrive queue', async () => {
    await send('{"type": 42}');
    const attrs = () =>
      stack.runtime.clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: stack.runtime.queues.urls.ingest, AttributeNames: ['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessages'] }),
      );
    const held = await waitFor('the invalid message to be received and kept', async () => {
      const a = (await attrs()).Attributes!;
      return Number(a.ApproximateNumberOfMessagesNotVisible) === 1 ? a : undefined;
    });
    assert.equal(Number(held.ApproximateNumberOfMessages), 0);
  });
});

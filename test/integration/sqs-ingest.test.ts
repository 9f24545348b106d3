import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { countTables } from '#test/table-counts.ts';
import { waitFor } from '#test/wait.ts';

describe('publishing through the SQS ingest queue', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  const send = (body: string) =>
    stack.runtime.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: stack.runtime.queues.urls.ingest, MessageBody: body }),
    );
  /** Messages received but not deleted: what a failed ingest leaves for the redrive queue. */
  const heldMessages = async () => {
    const out = await stack.runtime.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.runtime.queues.urls.ingest,
        AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(out.Attributes!.ApproximateNumberOfMessagesNotVisible);
  };

  it('ingests a message like POST /v1/events and delivers it, once per event id', async () => {
    stack.receiver.script('/sqs', [], { status: 200 });
    const sub = await stack.subscribe('/sqs', { eventTypes: ['sqs.test'] });
    const message = JSON.stringify({ id: 'sqs-evt-1', type: 'sqs.test', payload: { via: 'sqs' } });
    await send(message);
    await send(message); // a producer retry: same id, nothing new sent
    const d = await stack.waitForState(await stack.deliveryIdOf('sqs-evt-1', sub.id), ['delivered']);
    assert.equal(JSON.parse(d.body).data.via, 'sqs');
    await new Promise((r) => setTimeout(r, 2000));
    const received = stack.receiver.on('/sqs');
    assert.equal(received.length, 1);
    assert.equal(received[0]!.verified, true);
  });

  it("delivers the payload's source text byte for byte", async () => {
    stack.receiver.script('/sqs-exact', [], { status: 200 });
    const sub = await stack.subscribe('/sqs-exact', { eventTypes: ['sqs.exact'] });
    const payload = '{"b" : 1.0, "a":[1e2,"\\u00e9"] ,"big":"9007199254740993"}';
    await send(`{"id":"sqs-exact-1","type":"sqs.exact","payload":${payload}}`);
    const d = await stack.waitForState(await stack.deliveryIdOf('sqs-exact-1', sub.id), ['delivered']);
    const [received] = stack.receiver.on('/sqs-exact');
    assert.equal(received!.body, d.body);
    assert.ok(d.body.endsWith(`"data":${payload}}`), d.body);
  });

  it('refuses payloads that JSON.parse would rewrite: nothing is stored, the messages stay on the queue', async () => {
    const before = await countTables(stack.runtime);
    const held = await heldMessages();
    const hostile = [
      `{"id":"sqs-bad-1","type":"sqs.bad","payload":{"price":1e400}}`,
      `{"id":"sqs-bad-2","type":"sqs.bad","payload":{"n":9007199254740993}}`,
      `{"id":"sqs-bad-3","type":"sqs.bad","payload":{"a":1,"a":2}}`,
      `{"id":"sqs-bad-4","type":"sqs.bad","payload":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ];
    for (const body of hostile) await send(body);
    await waitFor('the hostile messages to be received', async () => (await heldMessages()) >= held + hostile.length);
    // Received is not yet refused: an accepted message would be deleted within moments, a refused one stays held.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(await heldMessages(), held + hostile.length, 'every hostile message is kept for the redrive queue');
    assert.deepEqual(await countTables(stack.runtime), before, 'nothing stored');
  });

  it('does not drop an invalid message: it stays on the queue, headed for the redrive queue', async () => {
    const attrs = () =>
      stack.runtime.clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: stack.runtime.queues.urls.ingest,
          AttributeNames: ['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessages'],
        }),
      );
    const kept = await heldMessages();
    await send('{"type": 42}');
    const held = await waitFor('the invalid message to be received and kept', async () => {
      const a = (await attrs()).Attributes!;
      return Number(a.ApproximateNumberOfMessagesNotVisible) === kept + 1 ? a : undefined;
    });
    assert.equal(Number(held.ApproximateNumberOfMessages), 0);
  });
});

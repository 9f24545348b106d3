import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { SimQueue, SimSqs } from '../../../scripts/scale-model/sim/sqs.ts';
import { ManualTime } from './manual-time.ts';

describe('the simulated SQS queue', () => {
  it('refuses receives once the in-flight budget is spent, and takes them again as messages are deleted', () => {
    const time = new ManualTime();
    const queue = new SimQueue('q', time, 25);
    for (let i = 0; i < 40; i++) queue.send(`m${i}`);
    const first = queue.receive(10, 30);
    const second = queue.receive(10, 30);
    const third = queue.receive(10, 30);
    assert.ok(Array.isArray(first) && Array.isArray(second) && Array.isArray(third));
    assert.equal(third.length, 5, 'the budget of 25 stops the third receive at 5');
    assert.equal(queue.receive(10, 30), 'over-limit');
    queue.delete(first[0]!.receiptHandle);
    const fourth = queue.receive(10, 30);
    assert.ok(Array.isArray(fourth));
    assert.equal(fourth.length, 1);
    assert.equal(queue.stats().overLimitRefusals, 1);
    assert.equal(queue.stats().inFlightPeak, 25);
  });

  it('counts the receives that returned something apart from the empty ones', () => {
    const queue = new SimQueue('q', new ManualTime());
    queue.receive(10, 30);
    queue.send('m');
    queue.receive(10, 30);
    queue.receive(10, 30);
    assert.equal(queue.stats().calls.ReceiveMessage, 3);
    assert.equal(queue.stats().nonEmptyReceives, 1);
  });

  it('keeps a delayed message hidden until its delay has passed, and brings an undeleted one back after its visibility', async () => {
    const time = new ManualTime();
    const queue = new SimQueue('q', time);
    queue.send('later', 5);
    assert.deepEqual(queue.receive(10, 30), []);
    await time.advance(5000);
    const got = queue.receive(10, 2);
    assert.ok(Array.isArray(got));
    assert.equal(got[0]!.body, 'later');
    assert.deepEqual(queue.receive(10, 2), [], 'in flight: not received twice');
    await time.advance(2000);
    const again = queue.receive(10, 2);
    assert.ok(Array.isArray(again));
    assert.equal(again[0]!.attributes.ApproximateReceiveCount, '2');
  });

  it('answers the real SDK client, and refuses a delay SQS refuses', async () => {
    const time = new ManualTime();
    const sqs = new SimSqs(time, () => 10);
    const queue = sqs.queue('q');
    const client = sqs.client();
    const sent = client.send(
      new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: [{ Id: '0', MessageBody: 'a', DelaySeconds: 0 }] }),
    );
    await time.advance(10);
    assert.equal((await sent).Successful?.length, 1);
    assert.equal(queue.depth().stored, 1);
    const refused = assert.rejects(
      client.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: [{ Id: '0', MessageBody: 'b', DelaySeconds: 901 }],
        }),
      ),
      { name: 'InvalidParameterValue' },
    );
    await time.advance(10);
    await refused;
  });

  it('refuses a batch over 256 KiB in all, as SQS does', async () => {
    const time = new ManualTime();
    const sqs = new SimSqs(time, () => 10);
    const queue = sqs.queue('q');
    const big = 'x'.repeat(100_000);
    const refused = assert.rejects(
      sqs.client().send(
        new SendMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: [0, 1, 2].map((i) => ({ Id: String(i), MessageBody: big })),
        }),
      ),
      { name: 'BatchRequestTooLong' },
    );
    await time.advance(10);
    await refused;
    assert.equal(queue.depth().stored, 0, 'nothing of it stored');
  });
});

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SQSClient,
  type SendMessageBatchRequestEntry,
} from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { decodeDeliveryMessages } from '#adapters/delivery-message-codec.ts';
import { SqsDeliveryQueue } from '#adapters/sqs-delivery-queue.ts';
import { QueueSendError } from '#adapters/errors.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/hookline-delivery';
const sqsMock = mockClient(SQSClient);
const newQueue = () => new SqsDeliveryQueue(new SQSClient({ region: 'eu-west-1' }), QUEUE_URL);
const messages = (n: number): DeliveryMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'due' as const,
    deliveryId: `dlv_${i}`,
    subscriptionId: `sub_${i % 3}`,
  }));

/** Each due a second after the one before: none shares a message. */
const spread = (n: number): DeliveryMessage[] => messages(n).map((m, i) => ({ ...m, delaySeconds: i }));

const batchCalls = () => sqsMock.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
const entriesOf = (call: { Entries?: SendMessageBatchRequestEntry[] }) => call.Entries ?? [];

describe('SqsDeliveryQueue', () => {
  beforeEach(() => {
    sqsMock.reset();
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });
  after(() => sqsMock.restore());

  describe('enqueue', () => {
    it('sends nothing for no messages', async () => {
      await newQueue().enqueue([]);

      assert.equal(sqsMock.calls().length, 0);
    });

    it('packs 23 deliveries due at the same second into messages of 10, 10 and 3, sent in one batch, each delivery once', async () => {
      await newQueue().enqueue(messages(23));

      const calls = batchCalls();
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.QueueUrl, QUEUE_URL);
      const packs = entriesOf(calls[0]!).map((e) => decodeDeliveryMessages(JSON.parse(e.MessageBody!)));
      assert.deepEqual(
        packs.map((p) => p.length),
        [10, 10, 3],
      );
      assert.deepEqual(
        packs
          .flat()
          .map((m) => m.deliveryId)
          .sort(),
        messages(23)
          .map((m) => m.deliveryId)
          .sort(),
      );
    });

    it('never packs deliveries due at different seconds; 25 of them go as 25 messages, in batches of 10, 10 and 5', async () => {
      await newQueue().enqueue(spread(25));

      const calls = batchCalls();
      assert.deepEqual(
        calls.map((c) => entriesOf(c).length).sort((a, b) => b - a),
        [10, 10, 5],
      );
      for (const call of calls) {
        const ids = entriesOf(call).map((e) => e.Id);
        assert.equal(new Set(ids).size, ids.length, 'entry ids are unique within a batch');
        for (const e of entriesOf(call))
          assert.equal(JSON.parse(e.MessageBody!).deliveryId, `dlv_${e.DelaySeconds}`, 'each with its own delay');
      }
    });

    it("keeps each batch within SQS's 256 KiB payload: five 100 KB messages go in batches of 2, 2 and 1", async () => {
      const large = Array.from({ length: 5 }, (_, i) => ({
        kind: 'fresh' as const,
        deliveryId: `dlv_${i}`,
        subscriptionId: 'sub_1',
        eventId: 'e',
        eventType: 't',
        createdAt: 'c',
        giveUpAt: 'g',
        body: JSON.stringify(randomBytes(75 * 1024).toString('base64')),
      }));

      await newQueue().enqueue(large);

      const calls = batchCalls();
      assert.deepEqual(
        calls.map((c) => entriesOf(c).length),
        [2, 2, 1],
      );
      for (const call of calls)
        assert.ok(entriesOf(call).reduce((n, e) => n + Buffer.byteLength(e.MessageBody!), 0) <= 256 * 1024);
    });

    it('sends a due message as its version, kind and ids alone', async () => {
      await newQueue().enqueue([{ kind: 'due', deliveryId: 'dlv_a', subscriptionId: 'sub_b', delaySeconds: 5 }]);

      const [entry] = entriesOf(batchCalls()[0]!);
      assert.equal(entry!.MessageBody, '{"v":2,"k":"due","deliveryId":"dlv_a","subscriptionId":"sub_b"}');
    });

    const delays: ReadonlyArray<readonly [number | undefined, number]> = [
      [undefined, 0],
      [0, 0],
      [-5, 0],
      [12.4, 12],
      [12.6, 13],
      [900, 900],
      [901, 900],
      [43_200, 900],
    ];
    for (const [given, sent] of delays) {
      it(`sends DelaySeconds ${sent} for a delay of ${given}`, async () => {
        await newQueue().enqueue([
          {
            kind: 'due',
            deliveryId: 'dlv_a',
            subscriptionId: 'sub_b',
            ...(given === undefined ? {} : { delaySeconds: given }),
          },
        ]);

        assert.equal(entriesOf(batchCalls()[0]!)[0]!.DelaySeconds, sent);
      });
    }

    it('resends only the entries SQS reported as failed', async () => {
      sqsMock
        .on(SendMessageBatchCommand)
        .resolvesOnce({
          Successful: [],
          Failed: [
            { Id: '1', Code: 'InternalError', SenderFault: false },
            { Id: '3', Code: 'InternalError', SenderFault: false },
          ],
        })
        .resolves({ Successful: [], Failed: [] });

      await newQueue().enqueue(spread(4));

      const calls = batchCalls();
      assert.equal(calls.length, 2);
      assert.deepEqual(
        entriesOf(calls[1]!).map((e) => JSON.parse(e.MessageBody!).deliveryId),
        ['dlv_1', 'dlv_3'],
      );
    });

    it('throws a QueueSendError after four tries when an entry keeps failing', async () => {
      sqsMock
        .on(SendMessageBatchCommand)
        .resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });

      await assert.rejects(
        newQueue().enqueue(spread(2)),
        (e: unknown) => e instanceof QueueSendError && e.name === 'QueueSendError' && /1 messages/.test(e.message),
      );

      const calls = batchCalls();
      assert.equal(calls.length, 4);
      assert.equal(entriesOf(calls[0]!).length, 2);
      for (const call of calls.slice(1))
        assert.deepEqual(
          entriesOf(call).map((e) => e.Id),
          ['0'],
        );
    });

    it('passes on an error from the batch call itself', async () => {
      sqsMock.on(SendMessageBatchCommand).rejects(new Error('AccessDenied'));

      await assert.rejects(newQueue().enqueue(messages(1)), /AccessDenied/);
    });
  });

  describe('setVisibility', () => {
    const visibilities: ReadonlyArray<readonly [number, number]> = [
      [30, 30],
      [30.4, 30],
      [0, 1],
      [-10, 1],
      [0.2, 1],
      [43_200, 43_200],
      [43_201, 43_200],
      [1_000_000, 43_200],
    ];
    for (const [given, sent] of visibilities) {
      it(`sets VisibilityTimeout ${sent} for a delay of ${given}`, async () => {
        sqsMock.on(ChangeMessageVisibilityCommand).resolves({});

        await newQueue().setVisibility('rh-1', given);

        const calls = sqsMock.commandCalls(ChangeMessageVisibilityCommand);
        assert.equal(calls.length, 1);
        assert.deepEqual(calls[0]!.args[0].input, {
          QueueUrl: QUEUE_URL,
          ReceiptHandle: 'rh-1',
          VisibilityTimeout: sent,
        });
      });
    }

    it('passes on an SQS error (an expired receipt handle, say)', async () => {
      sqsMock.on(ChangeMessageVisibilityCommand).rejects(new Error('ReceiptHandleIsInvalid'));

      await assert.rejects(newQueue().setVisibility('rh-1', 10), /ReceiptHandleIsInvalid/);
    });
  });
});

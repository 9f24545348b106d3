import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError, RetryLaterSignal } from '#app/errors.ts';
import { STAGE_RETRY_SECONDS, type SendOutcome, settle } from '#app/send/send.ts';
import { RecordingQueue } from '#test/fakes.ts';

const RECEIPT = 'receipt-handle-1';
const DELIVERY = 'dlv_abc';

describe('settle', () => {
  it('returns a done outcome and leaves the message alone (it is deleted as a success)', async () => {
    const queue = new RecordingQueue();
    const outcome: SendOutcome = { kind: 'done', note: 'already delivered' };

    const result = await settle({ queue }, RECEIPT, DELIVERY, async () => outcome);

    assert.deepEqual(result, { kind: 'done', note: 'already delivered' });
    assert.deepEqual(queue.retries, []);
    assert.deepEqual(queue.enqueued, []);
  });

  it('sets the visibility to the retry delay, then throws a RetryLaterSignal with the delivery and delay', async () => {
    const queue = new RecordingQueue();

    const error = await settle({ queue }, RECEIPT, DELIVERY, async () => ({ kind: 'retry_later', delaySeconds: 37, note: 'not due yet' })).then(
      () => assert.fail('settle should throw for retry_later'),
      (e: unknown) => e,
    );

    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: 37 }]);
    assert.ok(error instanceof RetryLaterSignal);
    assert.equal(error.deliveryId, DELIVERY);
    assert.equal(error.delaySeconds, 37);
    assert.equal(error.name, 'RetryLaterSignal');
  });

  it('brings a failed message back after STAGE_RETRY_SECONDS and rethrows the very same error', async () => {
    const queue = new RecordingQueue();
    const failure = new DeliveryStageError('before_attempt', DELIVERY, { cause: new Error('throttled') });

    await assert.rejects(
      settle({ queue }, RECEIPT, DELIVERY, async () => {
        throw failure;
      }),
      (e: unknown) => e === failure,
    );

    assert.equal(STAGE_RETRY_SECONDS, 10);
    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: 10 }]);
  });

  it('rethrows the original error, not the queue error, when retryLater itself fails', async () => {
    const queue = new RecordingQueue();
    queue.failRetryLater = new Error('SQS unreachable');
    const failure = new Error('attempt crashed');

    await assert.rejects(
      settle({ queue }, RECEIPT, DELIVERY, async () => {
        throw failure;
      }),
      (e: unknown) => e === failure,
    );

    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: STAGE_RETRY_SECONDS }]);
  });

  it('does not call run twice nor touch the queue before run settles', async () => {
    const queue = new RecordingQueue();
    let runs = 0;

    await settle({ queue }, RECEIPT, DELIVERY, async () => {
      runs++;
      assert.equal(queue.retries.length, 0);
      return { kind: 'done', note: 'delivered' };
    });

    assert.equal(runs, 1);
  });
});

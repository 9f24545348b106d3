import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError } from '#app/errors.ts';
import type { AttemptReport, SendOutcome } from '#app/send/send.ts';
import { STAGE_RETRY_SECONDS, settle } from '#app/send/settle.ts';
import { RecordingQueue } from '#test/fakes.ts';

const RECEIPT = 'receipt-handle-1';
const DELIVERY = 'dlv_abc';
const ATTEMPT: AttemptReport = { deliveryId: DELIVERY, subscriptionId: 'sub_1', eventType: 't', host: 'hooks.example.com', attempt: 2, status: 503, durationMs: 12, outcome: 'retry', state: 'pending', retryInSeconds: 20 };

describe('settle', () => {
  it('says done for a done outcome and leaves the message alone (it is deleted as a success)', async () => {
    const queue = new RecordingQueue();
    const outcome: SendOutcome = { kind: 'done', note: 'already delivered' };

    const fate = await settle({ queue }, RECEIPT, async () => outcome);

    assert.deepEqual(fate, { kind: 'done', note: 'already delivered' });
    assert.deepEqual(queue.retries, []);
    assert.deepEqual(queue.enqueued, []);
  });

  it('sets the visibility to the retry delay and says retry with that delay, without throwing', async () => {
    const queue = new RecordingQueue();

    const fate = await settle({ queue }, RECEIPT, async () => ({ kind: 'retry_later', delaySeconds: 37, note: 'not due yet' }));

    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: 37 }]);
    assert.deepEqual(fate, { kind: 'retry', delaySeconds: 37, note: 'not due yet' });
  });

  it('brings a failed message back after STAGE_RETRY_SECONDS and hands back the very same error', async () => {
    const queue = new RecordingQueue();
    const failure = new DeliveryStageError('before_attempt', DELIVERY, { cause: new Error('throttled') });

    const fate = await settle({ queue }, RECEIPT, async () => {
      throw failure;
    });

    assert.equal(fate.kind, 'error');
    assert.equal(fate.kind === 'error' && fate.error, failure);
    assert.equal(STAGE_RETRY_SECONDS, 10);
    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: 10 }]);
  });

  it('hands back the original error, not the queue error, when retryLater itself fails after a stage error', async () => {
    const queue = new RecordingQueue();
    queue.failRetryLater = new Error('SQS unreachable');
    const failure = new Error('attempt crashed');

    const fate = await settle({ queue }, RECEIPT, async () => {
      throw failure;
    });

    assert.deepEqual(fate, { kind: 'error', error: failure });
    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: STAGE_RETRY_SECONDS }]);
  });

  it('says error when the retry delay cannot be set (the queue timeout brings the message back instead)', async () => {
    const queue = new RecordingQueue();
    const unreachable = new Error('SQS unreachable');
    queue.failRetryLater = unreachable;

    const fate = await settle({ queue }, RECEIPT, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503' }));

    assert.deepEqual(fate, { kind: 'error', error: unreachable });
    assert.deepEqual(queue.retries, [{ receiptHandle: RECEIPT, delaySeconds: 20 }]);
  });

  it('passes the attempt that was made on to the handler, whatever the fate of the message', async () => {
    const retried = await settle({ queue: new RecordingQueue() }, RECEIPT, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT }));
    const done = await settle({ queue: new RecordingQueue() }, RECEIPT, async () => ({ kind: 'done', note: 'delivered', attempt: { ...ATTEMPT, outcome: 'succeed' } }));
    const unreachable = new RecordingQueue();
    unreachable.failRetryLater = new Error('SQS unreachable');
    const stranded = await settle({ queue: unreachable }, RECEIPT, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT }));

    assert.deepEqual(retried, { kind: 'retry', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT });
    assert.equal(done.attempt?.outcome, 'succeed');
    assert.deepEqual(stranded, { kind: 'error', error: unreachable.failRetryLater, attempt: ATTEMPT }, 'the POST happened even though the delay could not be set');
  });

  it('does not call run twice nor touch the queue before run settles', async () => {
    const queue = new RecordingQueue();
    let runs = 0;

    await settle({ queue }, RECEIPT, async () => {
      runs++;
      assert.equal(queue.retries.length, 0);
      return { kind: 'done', note: 'delivered' };
    });

    assert.equal(runs, 1);
  });
});

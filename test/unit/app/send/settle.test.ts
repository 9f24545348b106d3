import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError } from '#app/errors.ts';
import type { AttemptReport, SendOutcome } from '#app/send/send.ts';
import { type Later, type MessageFate, onItsOwn, packFinished, STAGE_RETRY_SECONDS, settle } from '#app/send/settle.ts';

const DELIVERY = 'dlv_abc';
const ATTEMPT: AttemptReport = { deliveryId: DELIVERY, subscriptionId: 'sub_1', eventType: 't', host: 'hooks.example.com', attempt: 2, status: 503, durationMs: 12, outcome: 'retry', state: 'pending', retryInSeconds: 20 };

/** A `later` that records each delay it is asked for, and fails with `failure` when given one. */
function recordingLater(failure?: Error): { later: Later; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    later: async (delaySeconds) => {
      delays.push(delaySeconds);
      if (failure) throw failure;
    },
  };
}

describe('settle', () => {
  it('says done for a done outcome and asks for no delay (the message is deleted as a success)', async () => {
    const { later, delays } = recordingLater();
    const outcome: SendOutcome = { kind: 'done', note: 'already delivered' };

    const fate = await settle(later, async () => outcome);

    assert.deepEqual(fate, { kind: 'done', note: 'already delivered' });
    assert.deepEqual(delays, []);
  });

  it('brings the message back after the retry delay and says retry with that delay, without throwing', async () => {
    const { later, delays } = recordingLater();

    const fate = await settle(later, async () => ({ kind: 'retry_later', delaySeconds: 37, note: 'not due yet' }));

    assert.deepEqual(delays, [37]);
    assert.deepEqual(fate, { kind: 'retry', delaySeconds: 37, note: 'not due yet' });
  });

  it('brings a failed message back after STAGE_RETRY_SECONDS and hands back the very same error', async () => {
    const { later, delays } = recordingLater();
    const failure = new DeliveryStageError('before_attempt', DELIVERY, { cause: new Error('throttled') });

    const fate = await settle(later, async () => {
      throw failure;
    });

    assert.deepEqual(fate, { kind: 'error', error: failure, deferred: true });
    assert.equal(STAGE_RETRY_SECONDS, 10);
    assert.deepEqual(delays, [10]);
  });

  it('hands back the original error, not the queue error, when the delay cannot be set after a stage error', async () => {
    const { later, delays } = recordingLater(new Error('SQS unreachable'));
    const failure = new Error('attempt crashed');

    const fate = await settle(later, async () => {
      throw failure;
    });

    assert.deepEqual(fate, { kind: 'error', error: failure, deferred: false });
    assert.deepEqual(delays, [STAGE_RETRY_SECONDS]);
  });

  it('says error when the retry delay cannot be set (the queue timeout brings the message back instead)', async () => {
    const unreachable = new Error('SQS unreachable');
    const { later, delays } = recordingLater(unreachable);

    const fate = await settle(later, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503' }));

    assert.deepEqual(fate, { kind: 'error', error: unreachable, deferred: false });
    assert.deepEqual(delays, [20]);
  });

  it('passes the attempt that was made on to the handler, whatever the fate of the message', async () => {
    const retried = await settle(recordingLater().later, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT }));
    const done = await settle(recordingLater().later, async () => ({ kind: 'done', note: 'delivered', attempt: { ...ATTEMPT, outcome: 'succeed' } }));
    const unreachable = new Error('SQS unreachable');
    const stranded = await settle(recordingLater(unreachable).later, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT }));

    assert.deepEqual(retried, { kind: 'retry', delaySeconds: 20, note: 'HTTP 503', attempt: ATTEMPT });
    assert.equal(done.attempt?.outcome, 'succeed');
    assert.deepEqual(stranded, { kind: 'error', error: unreachable, deferred: false, attempt: ATTEMPT }, 'the POST happened even though the delay could not be set');
  });

  it('does not call run twice nor ask for a delay before run settles', async () => {
    const { later, delays } = recordingLater();
    let runs = 0;

    await settle(later, async () => {
      runs++;
      assert.equal(delays.length, 0);
      return { kind: 'done', note: 'delivered' };
    });

    assert.equal(runs, 1);
  });
});

describe('a delivery leaving its pack', () => {
  it('keeps every field but `fresh`, with the delay it leaves with', () => {
    const message = { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1', eventType: 't', createdAt: 'c', giveUpAt: 'g', body: '{}', fresh: true } as const;

    assert.deepEqual(onItsOwn(message, 20), { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1', eventType: 't', createdAt: 'c', giveUpAt: 'g', body: '{}', delaySeconds: 20 });
  });

  it('the pack is finished when every delivery is done or handed over; one that could not be keeps it', () => {
    const done: MessageFate = { kind: 'done', note: 'delivered' };
    const retry: MessageFate = { kind: 'retry', delaySeconds: 20, note: 'HTTP 503' };
    const handedOver: MessageFate = { kind: 'error', error: new Error('throttled'), deferred: true };
    const stranded: MessageFate = { kind: 'error', error: new Error('SQS unreachable'), deferred: false };

    assert.equal(packFinished([done, retry, handedOver]), true);
    assert.equal(packFinished([done, stranded, retry]), false);
  });
});

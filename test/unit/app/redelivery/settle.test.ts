import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError } from '#app/errors.ts';
import type { AttemptReport, SendOutcome } from '#app/send/outcome.ts';
import {
  type Later,
  type MessageFate,
  messageFinished,
  onItsOwn,
  STAGE_RETRY_SECONDS,
  settle,
  stillOnItsWay,
  waitFor,
} from '#app/redelivery/settle.ts';
import { MAX_WAIT_LINK_SECONDS } from '#config/topology.ts';
import { wholeSecondsToward } from '#domain/backoff.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

const DELIVERY = 'dlv_abc';
const ATTEMPT: AttemptReport = {
  deliveryId: DELIVERY,
  subscriptionId: 'sub_1',
  eventType: 't',
  host: 'hooks.example.com',
  attempt: 2,
  status: 503,
  durationMs: 12,
  outcome: 'retry',
  state: 'pending',
  retryInSeconds: 20,
};

/** A `later` that records each delay it is asked for, answers `how`, and fails with `failure` when given one. */
function recordingLater(
  failure?: Error,
  how: 'kept' | 'moved' = 'kept',
): { later: Later; delays: number[]; nexts: unknown[]; rereads: unknown[] } {
  const delays: number[] = [];
  const nexts: unknown[] = [];
  const rereads: unknown[] = [];
  return {
    delays,
    nexts,
    rereads,
    later: async (delaySeconds, options = {}) => {
      delays.push(delaySeconds);
      nexts.push(options.next);
      rereads.push(options.reread);
      if (failure) throw failure;
      return how;
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
    assert.deepEqual(fate, { kind: 'retry', delaySeconds: 37, note: 'not due yet', released: false });
  });

  it("hands the message the outcome names (a retry's, a wait's) to later", async () => {
    const { later, nexts } = recordingLater(undefined, 'moved');
    const next = { kind: 'due', deliveryId: DELIVERY, subscriptionId: 'sub_1' } as const;

    const fate = await settle(later, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503', next }));

    assert.deepEqual(nexts, [next]);
    assert.equal(fate.kind === 'retry' && fate.released, true);
  });

  it('says the message is released when the delivery waits in a message of its own', async () => {
    const fate = await settle(recordingLater(undefined, 'moved').later, async () => ({
      kind: 'retry_later',
      delaySeconds: 3600,
      note: 'HTTP 503',
    }));

    assert.deepEqual(fate, { kind: 'retry', delaySeconds: 3600, note: 'HTTP 503', released: true });
  });

  it('brings a failed message back after STAGE_RETRY_SECONDS, its row to be read first, and hands back the very same error', async () => {
    const { later, delays, rereads } = recordingLater();
    const failure = new DeliveryStageError('before_attempt', DELIVERY, { cause: new Error('throttled') });

    const fate = await settle(later, async () => {
      throw failure;
    });

    assert.deepEqual(
      fate,
      { kind: 'error', error: failure, released: false },
      'back after STAGE_RETRY_SECONDS through the same message',
    );
    assert.equal(STAGE_RETRY_SECONDS, 10);
    assert.deepEqual(delays, [10]);
    assert.deepEqual(rereads, [true], 'the attempt may have been written before the failure');
  });

  it('hands back the original error, not the queue error, when the delay cannot be set after a stage error', async () => {
    const { later, delays } = recordingLater(new Error('SQS unreachable'));
    const failure = new Error('attempt crashed');

    const fate = await settle(later, async () => {
      throw failure;
    });

    assert.deepEqual(fate, { kind: 'error', error: failure, released: false });
    assert.deepEqual(delays, [STAGE_RETRY_SECONDS]);
  });

  it('says error when the retry delay cannot be set (the queue timeout brings the message back instead)', async () => {
    const unreachable = new Error('SQS unreachable');
    const { later, delays } = recordingLater(unreachable);

    const fate = await settle(later, async () => ({ kind: 'retry_later', delaySeconds: 20, note: 'HTTP 503' }));

    assert.deepEqual(fate, { kind: 'error', error: unreachable, released: false });
    assert.deepEqual(delays, [20]);
  });

  it('passes the attempt that was made on to the handler, whatever the fate of the message', async () => {
    const retried = await settle(recordingLater().later, async () => ({
      kind: 'retry_later',
      delaySeconds: 20,
      note: 'HTTP 503',
      attempt: ATTEMPT,
    }));
    const done = await settle(recordingLater().later, async () => ({
      kind: 'done',
      note: 'delivered',
      attempt: { ...ATTEMPT, outcome: 'succeed' },
    }));
    const unreachable = new Error('SQS unreachable');
    const stranded = await settle(recordingLater(unreachable).later, async () => ({
      kind: 'retry_later',
      delaySeconds: 20,
      note: 'HTTP 503',
      attempt: ATTEMPT,
    }));

    assert.deepEqual(retried, { kind: 'retry', delaySeconds: 20, note: 'HTTP 503', released: false, attempt: ATTEMPT });
    assert.equal(done.attempt?.outcome, 'succeed');
    assert.deepEqual(
      stranded,
      { kind: 'error', error: unreachable, released: false, attempt: ATTEMPT },
      'the POST happened even though the delay could not be set',
    );
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

describe('how a delivery waits', () => {
  const NOW_MS = Date.parse('2024-05-01T12:00:00.000Z');
  const MESSAGE = {
    kind: 'fresh',
    deliveryId: 'dlv_1',
    subscriptionId: 'sub_1',
    eventId: 'evt_1',
    eventType: 't',
    createdAt: 'c',
    giveUpAt: 'g',
    body: '{}',
  } as const;
  const OWN = MESSAGE;
  function queue() {
    const calls = { visibility: [] as number[], sent: [] as DeliveryMessage[], gathered: [] as DeliveryMessage[] };
    return {
      calls,
      queue: {
        setVisibility: async (d: number) => void calls.visibility.push(d),
        send: async (m: DeliveryMessage) => void calls.sent.push(m),
        sendNext: async (m: DeliveryMessage) => void calls.gathered.push(m),
      },
    };
  }
  type Message = Parameters<typeof waitFor>[0];
  const wait = (message: Message, alone: boolean, delaySeconds: number, how: Parameters<Later>[1] = {}) => {
    const q = queue();
    return waitFor(
      message,
      { alone, inFlightWaitSeconds: 60, now: () => NOW_MS },
      q.queue,
    )(delaySeconds, how).then((answer) => ({ how: answer, ...q.calls }));
  };

  it('alone in its message and a short wait: in flight, its visibility set to the wait', async () => {
    assert.deepEqual(await wait(MESSAGE, true, 60), { how: 'kept', visibility: [60], sent: [], gathered: [] });
  });

  it('a wait longer than the in-flight bound: a message of its own with the delay, as it was (nothing was written)', async () => {
    assert.deepEqual(await wait(MESSAGE, true, 61), {
      how: 'moved',
      visibility: [],
      sent: [{ ...OWN, delaySeconds: 61 }],
      gathered: [],
    });
  });

  it(`a wait past ${MAX_WAIT_LINK_SECONDS} s (under SQS's 900 s delay and the stuck-queue alarm's 15 minutes) goes that far, carrying the instant it is due`, async () => {
    const { sent } = await wait(MESSAGE, true, 3600);

    assert.deepEqual(sent, [{ ...OWN, delaySeconds: MAX_WAIT_LINK_SECONDS, notBefore: '2024-05-01T13:00:00.000Z' }]);
  });

  it('a link of such a chain is sent on as a delayed message even for the last short stretch, without its notBefore', async () => {
    assert.deepEqual(await wait({ ...MESSAGE, notBefore: '2024-05-01T12:00:30.000Z' }, true, 30), {
      how: 'moved',
      visibility: [],
      sent: [{ ...OWN, delaySeconds: 30 }],
      gathered: [],
    });
  });

  it('a delivery sharing its message (a pack) always waits in a message of its own', async () => {
    assert.deepEqual(await wait(MESSAGE, false, 20), {
      how: 'moved',
      visibility: [],
      sent: [{ ...OWN, delaySeconds: 20 }],
      gathered: [],
    });
  });

  it("a message the outcome names (`next`: a retry's) goes through sendNext, even alone with a short wait", async () => {
    const next = { kind: 'due', deliveryId: 'dlv_1', subscriptionId: 'sub_1' } as const;

    assert.deepEqual(await wait(MESSAGE, true, 20, { next }), {
      how: 'moved',
      visibility: [],
      sent: [],
      gathered: [{ ...next, delaySeconds: 20 }],
    });
  });

  it('a wait for an instant (a rate-limit turn): a message of its own at once, even alone, carrying the instant its whole seconds fall short of', async () => {
    const until = NOW_MS + 3_400;

    assert.deepEqual(await wait(MESSAGE, true, wholeSecondsToward(until, NOW_MS), { until }), {
      how: 'moved',
      visibility: [],
      sent: [{ ...OWN, delaySeconds: 3, notBefore: '2024-05-01T12:00:03.400Z' }],
      gathered: [],
    });
    const next = { kind: 'due', deliveryId: 'dlv_1', subscriptionId: 'sub_1' } as const;
    assert.deepEqual(
      (await wait(MESSAGE, true, 200, { next, until: NOW_MS + 200_250 })).sent,
      [{ ...next, delaySeconds: 200, notBefore: '2024-05-01T12:03:20.250Z' }],
      'a wait written into the row: its due message, sent at once (a gathered send could make it late)',
    );
  });

  it('hands the instant of a wait for one to later', async () => {
    const { later } = recordingLater(undefined, 'moved');
    const asked: unknown[] = [];
    const fate = await settle(
      async (d, how) => (asked.push(how?.until), later(d, how)),
      async () => ({ kind: 'retry_later', delaySeconds: 2, until: NOW_MS + 2_500, note: 'rate limit' }),
    );
    assert.deepEqual(asked, [NOW_MS + 2_500]);
    assert.equal(fate.kind === 'retry' && fate.released, true);
  });

  it('after a failure, a message sent on of its own is marked to have its row read first', async () => {
    assert.deepEqual(await wait(MESSAGE, false, 10, { reread: true }), {
      how: 'moved',
      visibility: [],
      sent: [{ ...OWN, reread: true, delaySeconds: 10 }],
      gathered: [],
    });
    assert.deepEqual(
      await wait(MESSAGE, true, 10, { reread: true }),
      { how: 'kept', visibility: [10], sent: [], gathered: [] },
      'alone, its next receive is read anyway',
    );
  });

  it('onItsOwn keeps every field; a link sent on keeps the instant it carries, to the millisecond', () => {
    assert.deepEqual(onItsOwn({ ...MESSAGE, notBefore: '2024-05-01T12:00:10.000Z' }, 10, NOW_MS), {
      ...OWN,
      delaySeconds: 10,
    });
    const due = '2024-05-01T12:33:20.250Z';
    assert.deepEqual(onItsOwn({ ...MESSAGE, notBefore: due }, 2001, NOW_MS), {
      ...OWN,
      delaySeconds: MAX_WAIT_LINK_SECONDS,
      notBefore: due,
    });
    assert.equal(
      onItsOwn({ ...MESSAGE, notBefore: '2024-05-01T11:00:00.000Z' }, 3600, NOW_MS).notBefore,
      '2024-05-01T13:00:00.000Z',
      'a chain that has ended starts a new one',
    );
    assert.deepEqual(
      onItsOwn({ ...MESSAGE, notBefore: '2024-05-01T12:00:10.400Z' }, 10, NOW_MS),
      { ...OWN, delaySeconds: 10, notBefore: '2024-05-01T12:00:10.400Z' },
      'a last link whose delay falls short of its instant keeps it, for the sender to hold the rest',
    );
  });

  it('a link of a chain is sent on until its notBefore has come, and any other message goes to its attempt', () => {
    assert.deepEqual(stillOnItsWay({ ...MESSAGE, notBefore: '2024-05-01T12:33:20.250Z' }, NOW_MS), {
      kind: 'retry_later',
      delaySeconds: 2001,
      note: 'waits until 2024-05-01T12:33:20.250Z',
    });
    assert.equal(
      stillOnItsWay({ ...MESSAGE, notBefore: '2024-05-01T12:00:00.000Z' }, NOW_MS),
      undefined,
      'its time has come',
    );
    assert.equal(stillOnItsWay(MESSAGE, NOW_MS), undefined, 'not a link');
    assert.equal(
      stillOnItsWay({ ...MESSAGE, notBefore: '2024-05-01T12:00:00.999Z' }, NOW_MS),
      undefined,
      'under a second left: back for a rate-limit turn, which the gate holds for',
    );
  });

  it('a message is finished when every delivery is done or released to a message of its own; one kept keeps it', () => {
    const done: MessageFate = { kind: 'done', note: 'delivered' };
    const moved: MessageFate = { kind: 'retry', delaySeconds: 20, note: 'HTTP 503', released: true };
    const kept: MessageFate = { kind: 'retry', delaySeconds: 20, note: 'HTTP 503', released: false };
    const handedOver: MessageFate = { kind: 'error', error: new Error('throttled'), released: true };
    const stranded: MessageFate = { kind: 'error', error: new Error('SQS unreachable'), released: false };

    assert.equal(messageFinished([done, moved, handedOver]), true);
    assert.equal(messageFinished([done, stranded, moved]), false);
    assert.equal(messageFinished([kept]), false);
  });
});

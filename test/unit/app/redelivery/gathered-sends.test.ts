import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gatheredSends } from '#app/redelivery/gathered-sends.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

const m = (n: number): DeliveryMessage => ({
  kind: 'due',
  deliveryId: `dlv_${n}`,
  subscriptionId: 'sub_1',
  delaySeconds: 1,
});

function recording(fail?: Error) {
  const calls: string[][] = [];
  const enqueue = async (messages: readonly DeliveryMessage[]) => {
    calls.push(messages.map((x) => x.deliveryId));
    if (fail) throw fail;
  };
  return { calls, enqueue };
}

describe('gathered sends', () => {
  it('sends what comes within the window of the first as one call, and what comes after as the next', async () => {
    const { calls, enqueue } = recording();
    const send = gatheredSends(enqueue, 30, 100);

    const early = [send(m(1)), send(m(2))];
    await new Promise((r) => setTimeout(r, 5));
    early.push(send(m(3)));
    assert.deepEqual(calls, [], 'nothing sent before the window ends');
    await Promise.all(early);
    await send(m(4));

    assert.deepEqual(calls, [['dlv_1', 'dlv_2', 'dlv_3'], ['dlv_4']]);
  });

  it('a full gathering goes at once, without waiting for its window', async () => {
    const { calls, enqueue } = recording();
    const send = gatheredSends(enqueue, 60_000, 3);
    const started = Date.now();

    await Promise.all([1, 2, 3].map((n) => send(m(n))));
    await Promise.all([4, 5, 6].map((n) => send(m(n))));

    assert.deepEqual(calls, [
      ['dlv_1', 'dlv_2', 'dlv_3'],
      ['dlv_4', 'dlv_5', 'dlv_6'],
    ]);
    assert.ok(Date.now() - started < 1000);
  });

  it('a failed send fails every message gathered into it, and only those', async () => {
    const failure = new Error('SQS unreachable');
    const broken = recording(failure);
    const send = gatheredSends(broken.enqueue, 10, 100);

    const results = await Promise.allSettled([send(m(1)), send(m(2))]);

    assert.deepEqual(results, [
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    assert.deepEqual(broken.calls, [['dlv_1', 'dlv_2']]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forEachLimit, Slots } from '#app/concurrency.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('forEachLimit()', () => {
  it('runs every item, never more than the limit at once', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await forEachLimit(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (item) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await tick();
        seen.push(item);
        inFlight--;
      },
    );
    assert.equal(most, 4);
    assert.deepEqual(
      seen.toSorted((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it('rejects with the first error', async () => {
    await assert.rejects(
      forEachLimit([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('item 2 failed');
      }),
      /item 2 failed/,
    );
  });
});

describe('Slots', () => {
  it('serves waiters in the order they asked, also while more ask and the served part of the queue is dropped', async () => {
    const slots = new Slots(1);
    const order: number[] = [];
    const runs: Promise<void>[] = [];
    const ask = (n: number) =>
      runs.push(
        slots.run(async () => {
          order.push(n);
          await tick();
          // Asked from inside a task: queued behind everyone already waiting.
          if (n % 10 === 0 && n < 100) ask(n + 1000);
        }),
      );
    for (let n = 0; n < 100; n++) ask(n);
    // Until no task asks again: every run started so far has ended.
    for (let awaited = -1; awaited < runs.length; ) {
      awaited = runs.length;
      await Promise.all(runs);
    }
    assert.equal(order.length, 110);
    assert.deepEqual(
      order.slice(0, 100),
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.deepEqual(
      order.slice(100),
      Array.from({ length: 10 }, (_, i) => i * 10 + 1000),
    );
  });
});

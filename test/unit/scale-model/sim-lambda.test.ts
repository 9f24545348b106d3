import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { AccountConcurrency, FunctionPool, QueueMapping } from '../../../scripts/scale-model/sim/lambda.ts';
import { SimQueue } from '../../../scripts/scale-model/sim/sqs.ts';
import { ManualTime } from './manual-time.ts';

describe('the simulated Lambda', () => {
  it('throttles past a reservation and past the account, and cold-starts one environment per concurrent invocation', async () => {
    const time = new ManualTime();
    const account = new AccountConcurrency(3);
    const slow = async () => {
      await time.sleep(100);
      return 'ok';
    };
    const reserved = new FunctionPool<unknown, string>('sender', {
      time,
      account,
      make: () => slow,
      initMs: 50,
      reserved: 2,
    });
    const shared = new FunctionPool<unknown, string>('api', { time, account, make: () => slow, initMs: 50 });
    const calls = [reserved.invoke({}), reserved.invoke({}), reserved.invoke({})];
    const api = [shared.invoke({}), shared.invoke({}), shared.invoke({}), shared.invoke({})];
    await time.advance(200);
    const kinds = (await Promise.all(calls)).map((c) => c.kind);
    assert.deepEqual(kinds, ['done', 'done', 'throttled']);
    assert.deepEqual(
      (await Promise.all(api)).map((c) => c.kind),
      ['done', 'done', 'done', 'throttled'],
    );
    assert.equal(reserved.stats().coldStarts, 2);
    assert.equal(account.peak, 3);
  });

  it('scales an SQS mapping whose batches are all blocked: the backlog drives it', async () => {
    const time = new ManualTime();
    const queue = new SimQueue('q', time);
    for (let i = 0; i < 1_000; i++) queue.send(`m${i}`);
    // Every batch hangs for a minute, as batches waiting on a hanging endpoint do.
    const pool = new FunctionPool<SQSEvent, SQSBatchResponse | undefined>('sender', {
      time,
      account: new AccountConcurrency(),
      make: () => async () => {
        await time.sleep(60_000);
        return { batchItemFailures: [] };
      },
      initMs: 0,
    });
    const mapping = new QueueMapping(queue, pool, { batchSize: 10, maxConcurrency: 50, visibilitySeconds: 120 }, time);
    mapping.start();
    await time.advance(2_100);
    mapping.stop();
    assert.equal(mapping.peakPollers, 15, '5, then one more each 200 ms for 2 s');
  });

  it('scales an SQS mapping from 5 batches by one each 200 ms while messages wait, busy batches or not, up to its maximum', async () => {
    const time = new ManualTime();
    const queue = new SimQueue('q', time);
    for (let i = 0; i < 20_000; i++) queue.send(`m${i}`);
    const handler = async (_e: SQSEvent): Promise<SQSBatchResponse> => {
      await time.sleep(1000);
      return { batchItemFailures: [] };
    };
    const pool = new FunctionPool<SQSEvent, SQSBatchResponse | undefined>('sender', {
      time,
      account: new AccountConcurrency(),
      make: () => handler,
      initMs: 0,
    });
    const mapping = new QueueMapping(queue, pool, { batchSize: 10, maxConcurrency: 12, visibilitySeconds: 30 }, time);
    mapping.start();
    await time.advance(500);
    assert.ok(mapping.peakPollers >= 5 && mapping.peakPollers <= 8, `after 0.5 s: ${mapping.peakPollers}`);
    await time.advance(10_000);
    mapping.stop();
    assert.equal(mapping.peakPollers, 12, 'capped at MaximumConcurrency');
    assert.ok(queue.stats().deleted > 0);
  });

  it('fills a batch within its batching window: full batches at once, a trickle gathered for the window', async () => {
    const time = new ManualTime();
    const queue = new SimQueue('q', time);
    const sizes: number[] = [];
    const pool = new FunctionPool<SQSEvent, SQSBatchResponse | undefined>('sender', {
      time,
      account: new AccountConcurrency(),
      make: () => async (e: SQSEvent) => {
        sizes.push(e.Records.length);
        return { batchItemFailures: [] };
      },
      initMs: 0,
    });
    const settings = { batchSize: 100, batchingWindowSeconds: 1, maxConcurrency: 1, visibilitySeconds: 30 };
    for (let i = 0; i < 200; i++) queue.send(`m${i}`);
    const mapping = new QueueMapping(queue, pool, settings, time);
    mapping.start();
    await time.advance(100);
    assert.deepEqual(sizes, [100, 100], 'a backlog: full batches, no wait');
    // A trickle of 10 a second: a batch a window, holding what came in it.
    for (let t = 0; t < 3_000; t += 100) {
      queue.send(`t${t}`);
      await time.advance(100);
    }
    await time.advance(1_000);
    mapping.stop();
    const trickle = sizes.slice(2);
    assert.ok(trickle.length >= 3 && trickle.length <= 4, `batches: ${sizes.join(',')}`);
    assert.ok(
      trickle.every((n) => n >= 5),
      `each batch gathered for its window, not handed over one by one: ${sizes.join(',')}`,
    );
    assert.equal(queue.stats().deleted, 230);
  });
});

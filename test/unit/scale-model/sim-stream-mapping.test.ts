/**
 * The simulated Lambda DynamoDB stream event source mapping: batching, filtering, retries and
 * checkpoints, on manual time, reading a stream fed through a real SDK client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamOptions } from '../../../scripts/scale-model/sim/dynamodb/stream.ts';
import { AccountConcurrency, FunctionPool } from '../../../scripts/scale-model/sim/lambda.ts';
import {
  StreamMapping,
  type StreamMappingSettings,
  type StreamResponse,
} from '../../../scripts/scale-model/sim/stream-mapping.ts';
import { streamedTable } from './streamed-table.ts';

type Handler = (event: DynamoDBStreamEvent) => Promise<StreamResponse>;

/** A stream, a function that runs `handler`, and a mapping between them (not started). */
function setup(handler: Handler, settings: StreamMappingSettings = {}, options?: Partial<StreamOptions>) {
  const table = streamedTable({ viewType: 'NEW_IMAGE', shards: 1, ...options });
  const pool = new FunctionPool<DynamoDBStreamEvent, StreamResponse>('sender', {
    time: table.time,
    account: new AccountConcurrency(),
    make: () => handler,
    initMs: 0,
  });
  const mapping = new StreamMapping(table.stream, pool, settings, table.time);
  const put = (pk: string, version = 1) =>
    table.db.send(new PutCommand({ TableName: 't', Item: { pk, sk: 0, version } }));
  return { ...table, pool, mapping, put };
}

const keyOf = (r: DynamoDBRecord) => `${r.dynamodb?.Keys?.pk?.S}:${r.dynamodb?.NewImage?.version?.N}`;

describe('the simulated DynamoDB stream mapping', () => {
  it('hands a backlog over in full batches, and a trickle gathered for each batching window', async () => {
    const sizes: number[] = [];
    const { time, mapping, put } = setup(
      async (e) => {
        sizes.push(e.Records.length);
      },
      { batchSize: 100, maximumBatchingWindowSeconds: 1 },
    );
    for (let i = 0; i < 1_000; i++) await put(`k${i}`);
    mapping.start();
    await time.advance(500);
    assert.deepEqual(sizes, Array(10).fill(100), 'a backlog: full batches, no wait');
    // A trickle of 10 a second: a batch a window, holding what came in it.
    for (let t = 0; t < 3_000; t += 100) {
      await put(`t${t}`);
      await time.advance(100);
    }
    await time.advance(1_500);
    mapping.stop();
    const trickle = sizes.slice(10);
    assert.ok(trickle.length >= 3 && trickle.length <= 4, `batches: ${trickle.join(',')}`);
    assert.ok(
      trickle.every((n) => n >= 5),
      `each batch gathered for its window: ${trickle.join(',')}`,
    );
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      1_030,
    );
    assert.equal(mapping.backlog().records, 0);
  });

  it('polls an idle shard 4 times a second and hands a record over on the next poll without a window', async () => {
    const at: number[] = [];
    const { time, mapping, put } = setup(async () => {
      at.push(time.now());
    });
    mapping.start();
    await time.advance(1_000);
    await put('a');
    await time.advance(1_000);
    mapping.stop();
    // Written at 1,000, readable at 1,100 (propagation), read by the poll at 1,250.
    assert.deepEqual(at, [1_250]);
  });

  it('hands over only INSERTs when filtered so, and checkpoints past the rest', async () => {
    const seen: string[] = [];
    const { time, db, mapping, put, stream } = setup(
      async (e) => {
        seen.push(...e.Records.map((r) => `${r.eventName} ${r.dynamodb?.Keys?.pk?.S}`));
      },
      { eventNames: ['INSERT'] },
    );
    mapping.start();
    for (const pk of ['a', 'b']) {
      await put(pk);
      await db.send(
        new UpdateCommand({
          TableName: 't',
          Key: { pk, sk: 0 },
          UpdateExpression: 'SET version = :v',
          ExpressionAttributeValues: { ':v': 2 },
        }),
      );
      await db.send(new DeleteCommand({ TableName: 't', Key: { pk, sk: 0 } }));
    }
    await time.advance(1_000);
    mapping.stop();
    assert.deepEqual(seen, ['INSERT a', 'INSERT b']);
    assert.equal(mapping.stats().filtered, 4);
    assert.equal(mapping.backlog().records, 0);
    assert.equal(stream.stats().retained, 0, 'the skipped records are freed too');
  });

  it('retries a throwing function until it succeeds, losing and reordering nothing, one batch of a shard at a time', async () => {
    let calls = 0;
    let inFlight = 0;
    let overlap = false;
    const delivered: string[] = [];
    const { time, mapping, put } = setup(
      async (e) => {
        overlap ||= inFlight > 0;
        inFlight++;
        await time.sleep(50);
        inFlight--;
        if (++calls % 3 !== 0) throw new Error('fan-out failed');
        delivered.push(...e.Records.map(keyOf));
      },
      { batchSize: 25 },
    );
    const written: string[] = [];
    for (let version = 1; version <= 10; version++)
      for (let k = 0; k < 20; k++) {
        await put(`k${k}`, version);
        written.push(`k${k}:${version}`);
      }
    mapping.start();
    await time.advance(60_000);
    mapping.stop();
    assert.deepEqual(delivered, written, 'every record once, in write order');
    assert.equal(overlap, false);
    const stats = mapping.stats();
    assert.equal(stats.invocations, 24, '8 batches, each thrown twice first');
    assert.equal(stats.retries, 16);
    assert.equal(stats.records, 600);
  });

  it('resumes a partial batch failure from the record it names', async () => {
    const events: string[][] = [];
    let failedOnce = false;
    const { time, mapping, put } = setup(async (e) => {
      events.push(e.Records.map(keyOf));
      const sixth = e.Records[5];
      if (!failedOnce && sixth) {
        failedOnce = true;
        return { batchItemFailures: [{ itemIdentifier: sixth.dynamodb?.SequenceNumber as string }] };
      }
      return { batchItemFailures: [] };
    });
    for (let i = 0; i < 10; i++) await put(`k${i}`);
    mapping.start();
    await time.advance(2_000);
    mapping.stop();
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}:1`);
    assert.deepEqual(events, [keys, keys.slice(5)]);
    assert.equal(mapping.stats().retries, 1);
  });

  it('halves a failing batch when bisecting, and drops only the poison record once retries are spent', async () => {
    const delivered: string[] = [];
    const { time, mapping, put } = setup(
      async (e) => {
        if (e.Records.some((r) => r.dynamodb?.Keys?.pk?.S === 'k5')) throw new Error('poison');
        delivered.push(...e.Records.map((r) => r.dynamodb?.Keys?.pk?.S as string));
      },
      { batchSize: 8, bisectBatchOnFunctionError: true, maximumRetryAttempts: 2 },
    );
    for (let i = 0; i < 8; i++) await put(`k${i}`);
    mapping.start();
    await time.advance(10_000);
    mapping.stop();
    assert.deepEqual(delivered, ['k0', 'k1', 'k2', 'k3', 'k4', 'k6', 'k7']);
    assert.equal(mapping.stats().discarded, 1);
  });

  it('runs ParallelizationFactor batches of a shard at once, each key still in order', async () => {
    let inFlight = 0;
    let peak = 0;
    let calls = 0;
    const delivered = new Map<string, number[]>();
    const { time, mapping, put } = setup(
      async (e) => {
        peak = Math.max(peak, ++inFlight);
        // Batches of uneven length, so lanes drift apart: a key split between lanes would come out of order.
        await time.sleep(50 + 37 * (calls++ % 5));
        inFlight--;
        for (const r of e.Records) {
          const pk = r.dynamodb?.Keys?.pk?.S as string;
          (delivered.get(pk) ?? delivered.set(pk, []).get(pk)!).push(Number(r.dynamodb?.NewImage?.version?.N));
        }
      },
      { batchSize: 10, parallelizationFactor: 4 },
    );
    for (let version = 1; version <= 5; version++) for (let k = 0; k < 40; k++) await put(`k${k}`, version);
    mapping.start();
    await time.advance(10_000);
    mapping.stop();
    assert.equal(peak, 4);
    assert.equal(delivered.size, 40);
    for (const [pk, versions] of delivered) assert.deepEqual(versions, [1, 2, 3, 4, 5], pk);
  });

  it('measures the iterator age on virtual time, from the write to the start of the invocation', async () => {
    const { time, mapping, put } = setup(
      async () => {
        await time.sleep(2_000);
      },
      { batchSize: 5 },
    );
    for (let i = 0; i < 10; i++) await put(`k${i}`);
    mapping.start();
    assert.equal(mapping.backlog().records, 10);
    await time.advance(3_000);
    // Readable at 100, read by the poll at 250: the first batch runs 250-2,250, the second starts then.
    assert.equal(mapping.stats().peakIteratorAgeMs, 2_250);
    assert.deepEqual(mapping.backlog(), { records: 5, oldestAgeMs: 3_000 });
    await time.advance(2_000);
    mapping.stop();
    assert.equal(mapping.backlog().records, 0);
  });

  it('frees the records it has checkpointed past: memory follows the backlog, not the run', async () => {
    let delivered = 0;
    const { time, mapping, put, stream } = setup(
      async (e) => {
        delivered += e.Records.length;
      },
      {},
      { shards: 2 },
    );
    mapping.start();
    let peakSlots = 0;
    for (let second = 0; second < 20; second++) {
      for (let i = 0; i < 1_000; i++) await put(`k${second}-${i}`);
      await time.advance(1_000);
      peakSlots = Math.max(peakSlots, stream.stats().slots);
    }
    mapping.stop();
    assert.equal(delivered, 20_000);
    assert.equal(stream.stats().records, 20_000);
    assert.equal(stream.stats().retained, 0);
    assert.ok(peakSlots < 5_000, `at most a few seconds of records held, not all 20,000: ${peakSlots}`);
  });
});

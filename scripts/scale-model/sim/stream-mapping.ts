import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import {
  type ChangeRecord,
  sequenceNumber,
  type StreamEventName,
  type StreamShard,
  type TableStream,
} from './dynamodb/stream.ts';
import { Fifo } from './fifo.ts';
import type { FunctionPool, Invocation } from './lambda.ts';
import type { SimTime } from './time.ts';

/** What a stream function returns: aws-lambda's DynamoDBStreamHandler type, so a handler goes into the pool as typed. */
// biome-ignore lint/suspicious/noConfusingVoidType: it is that handler type's return, where void is the norm.
export type StreamResponse = DynamoDBBatchResponse | void;

/**
 * Lambda's DynamoDB stream event source mapping, as the Lambda Developer Guide describes it
 * (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, services-ddb-params.html): the
 * parameters and their defaults are Lambda's.
 */
export interface StreamMappingSettings {
  /** BatchSize: 100 by default. */
  readonly batchSize?: number;
  /** MaximumBatchingWindowInSeconds: 0 by default (a batch goes as soon as it is read). */
  readonly maximumBatchingWindowSeconds?: number;
  /** ParallelizationFactor: concurrent batches per shard, records split among them by partition key; 1 by default. */
  readonly parallelizationFactor?: number;
  /** A FilterCriteria on eventName: the others are checkpointed past, never handed over. All by default. */
  readonly eventNames?: readonly StreamEventName[];
  readonly bisectBatchOnFunctionError?: boolean;
  /** MaximumRetryAttempts: -1 (the default) retries until the function succeeds. */
  readonly maximumRetryAttempts?: number;
  /** FunctionResponseTypes: ReportBatchItemFailures. On by default here: the fan-out will use it. */
  readonly reportBatchItemFailures?: boolean;
}

/**
 * Timings Lambda documents or the model assumes:
 * - an idle shard is polled at Lambda's base rate, 4 times a second ("Polling and batching streams");
 * - a batch that failed is retried after a pause, and a throttled invocation too; AWS publishes
 *   neither figure, so 500 ms and 100 ms (the SQS mapping's throttle pause) are the model's.
 */
export const STREAM_MAPPING_TIMINGS = { pollMs: 250, retryPauseMs: 500, throttlePauseMs: 100 } as const;

export interface StreamMappingStats {
  /** Invocations that ran (throttled ones not counted). */
  readonly invocations: number;
  /** Records handed to the function, a retried record each time. */
  readonly records: number;
  /** Invocations that repeated records after an error or a partial batch failure. */
  readonly retries: number;
  readonly throttles: number;
  /** Records dropped after MaximumRetryAttempts, or trimmed from the stream before they were read. */
  readonly discarded: number;
  /** Records skipped by the eventName filter. */
  readonly filtered: number;
  /** The longest wait, in virtual ms, from a record's write to the start of an invocation carrying it. */
  readonly peakIteratorAgeMs: number;
}

/** One concurrent batch of a shard: its records in order, the front ones in flight. */
class Lane {
  readonly pending = new Fifo<ChangeRecord>();
}

/** A shard's reader: what it has read, dealt to its lanes until each finishes them. */
class ShardReader {
  read: number;
  readonly lanes: Lane[];

  constructor(
    readonly shard: StreamShard,
    parallelization: number,
  ) {
    this.read = shard.start;
    this.lanes = Array.from({ length: parallelization }, () => new Lane());
  }

  /** The shard's checkpoint: the oldest record a lane still holds, else all that was read. */
  checkpoint(): number {
    let at = this.read;
    for (const lane of this.lanes) {
      const first = lane.pending.peek();
      if (first && first.position < at) at = first.position;
    }
    return at;
  }
}

/**
 * Polls each shard, deals its records to ParallelizationFactor lanes by partition key (so a key's
 * records stay in order, in one lane), and runs one batch at a time per lane. A batch that throws
 * is retried whole (halved first when bisecting); one whose response names a failed record is
 * checkpointed before that record and retried from it. A lane starts nothing new while its batch
 * is being retried, so a shard with one lane is processed strictly in order, as Lambda does.
 */
export class StreamMapping {
  private running = false;
  private readonly readers: ShardReader[];
  private readonly batchSize: number;
  private readonly windowMs: number;
  private readonly maxRetries: number;
  private readonly counts = {
    invocations: 0,
    records: 0,
    retries: 0,
    throttles: 0,
    discarded: 0,
    filtered: 0,
    peakIteratorAgeMs: 0,
  };

  constructor(
    private readonly stream: TableStream,
    private readonly pool: FunctionPool<DynamoDBStreamEvent, StreamResponse>,
    private readonly settings: StreamMappingSettings,
    private readonly time: SimTime,
  ) {
    this.batchSize = settings.batchSize ?? 100;
    this.windowMs = (settings.maximumBatchingWindowSeconds ?? 0) * 1000;
    this.maxRetries = settings.maximumRetryAttempts ?? -1;
    const parallelization = settings.parallelizationFactor ?? 1;
    if (this.batchSize < 1 || parallelization < 1 || parallelization > 10)
      throw new Error('batchSize must be at least 1 and parallelizationFactor 1 to 10');
    this.readers = stream.shards.map((s) => new ShardReader(s, parallelization));
  }

  start(): void {
    this.running = true;
    for (const reader of this.readers) for (const lane of reader.lanes) void this.run(reader, lane);
  }

  stop(): void {
    this.running = false;
  }

  stats(): StreamMappingStats {
    return { ...this.counts };
  }

  /** Records written and not yet checkpointed past (readable or not), and the age of the oldest. */
  backlog(): { readonly records: number; readonly oldestAgeMs: number } {
    let records = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const r of this.readers) {
      const from = Math.max(r.checkpoint(), r.shard.start);
      records += r.shard.end - from;
      const first = r.shard.at(from);
      if (first) oldest = Math.min(oldest, first.writtenAt);
    }
    return { records, oldestAgeMs: records > 0 ? this.time.now() - oldest : 0 };
  }

  /** Reads the shard's newly readable records into the lanes: one poll, which any idle lane may make. */
  private poll(reader: ShardReader): void {
    const { shard } = reader;
    if (reader.read < shard.start) {
      this.counts.discarded += shard.start - reader.read;
      reader.read = shard.start;
    }
    const end = shard.readableEnd(this.time.now());
    const names = this.settings.eventNames;
    const lanes = reader.lanes.length;
    for (; reader.read < end; reader.read++) {
      const r = shard.at(reader.read) as ChangeRecord;
      if (names && !names.includes(r.eventName)) {
        this.counts.filtered++;
        continue;
      }
      // The shard came from hash % shards; the lane from the rest of the hash, so lanes share a shard's keys evenly.
      const lane = reader.lanes[Math.floor(r.hash / this.stream.shards.length) % lanes] as Lane;
      lane.pending.push(r);
    }
    shard.release(reader.checkpoint());
  }

  private async run(reader: ShardReader, lane: Lane): Promise<void> {
    const { pollMs } = STREAM_MAPPING_TIMINGS;
    while (this.running) {
      this.poll(reader);
      const first = lane.pending.peek();
      if (!first) {
        await this.time.sleep(pollMs);
        continue;
      }
      if (lane.pending.size < this.batchSize) {
        const due = first.readableAt + this.windowMs;
        const now = this.time.now();
        if (now < due) {
          await this.time.sleep(Math.min(pollMs, due - now));
          continue;
        }
      }
      await this.process(reader, lane);
    }
  }

  /**
   * The lane's front batch, handed over until every record in it is checkpointed past. Bisecting
   * hands over the front half of what failed; once that succeeds, the rest goes as a batch of its own.
   */
  private async process(reader: ShardReader, lane: Lane): Promise<void> {
    const { retryPauseMs, throttlePauseMs } = STREAM_MAPPING_TIMINGS;
    let remaining = Math.min(lane.pending.size, this.batchSize);
    let size = remaining;
    let failures = 0;
    while (size > 0 && this.running) {
      const batch: ChangeRecord[] = [];
      for (let p = lane.pending.start; batch.length < size; p++) batch.push(lane.pending.at(p) as ChangeRecord);
      const outcome = await this.invoke(batch, failures > 0);
      if (outcome === 'throttled') {
        await this.time.sleep(throttlePauseMs);
        continue;
      }
      const done = outcome === 'error' ? 0 : this.completed(batch, outcome);
      this.finish(reader, lane, done);
      remaining -= done;
      size -= done;
      if (size === 0) {
        size = remaining;
        failures = 0;
        continue;
      }
      failures++;
      if (this.maxRetries >= 0 && failures > this.maxRetries) {
        // Retries spent: Lambda sends the records to the on-failure destination and goes on.
        this.counts.discarded += size;
        this.finish(reader, lane, size);
        remaining -= size;
        size = remaining;
        failures = 0;
        continue;
      }
      if (outcome === 'error' && this.settings.bisectBatchOnFunctionError && size > 1) size = Math.ceil(size / 2);
      await this.time.sleep(retryPauseMs);
    }
  }

  private async invoke(
    batch: readonly ChangeRecord[],
    retry: boolean,
  ): Promise<'throttled' | 'error' | DynamoDBBatchResponse | undefined> {
    // Noted as the attempt starts, so a report sees a batch stuck in a slow invocation; a throttled
    // attempt's age never exceeds the later one that runs, so counting it leaves the peak as it is.
    const age = this.time.now() - (batch[0] as ChangeRecord).writtenAt;
    this.counts.peakIteratorAgeMs = Math.max(this.counts.peakIteratorAgeMs, age);
    const event: DynamoDBStreamEvent = { Records: batch.map((r) => this.stream.lambdaRecord(r)) };
    let outcome: Invocation<StreamResponse> | 'error';
    try {
      outcome = await this.pool.invoke(event);
    } catch {
      outcome = 'error';
    }
    if (outcome !== 'error' && outcome.kind === 'throttled') {
      this.counts.throttles++;
      return 'throttled';
    }
    this.counts.invocations++;
    this.counts.records += batch.length;
    if (retry) this.counts.retries++;
    return outcome === 'error' ? outcome : (outcome.value ?? undefined);
  }

  /**
   * How many of the batch's records are done: all, unless the response names failures, then those
   * before the lowest one. A named record not in the batch fails the whole batch, as Lambda treats it.
   */
  private completed(batch: readonly ChangeRecord[], response: DynamoDBBatchResponse | undefined): number {
    const failed = this.settings.reportBatchItemFailures === false ? [] : (response?.batchItemFailures ?? []);
    if (failed.length === 0) return batch.length;
    const named = new Set(failed.map((f) => f.itemIdentifier));
    let lowest = batch.length;
    for (const id of named) {
      const at = batch.findIndex((r) => sequenceNumber(r.sequence) === id);
      if (at < 0) return 0;
      lowest = Math.min(lowest, at);
    }
    return lowest;
  }

  private finish(reader: ShardReader, lane: Lane, count: number): void {
    lane.pending.releaseBefore(lane.pending.start + count);
    reader.shard.release(reader.checkpoint());
  }
}

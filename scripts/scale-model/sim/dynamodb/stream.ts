/**
 * A table's DynamoDB stream for the scale model: one record per item-level change, in write order
 * per item, on shards chosen by a hash of the partition key, readable a propagation delay after
 * the write and trimmed after 24 hours (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html).
 * Records keep the native items (the same objects the table stores, never mutated) and are
 * marshalled only when read, so a stream whose consumer keeps up costs little memory.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { SimTime } from '../time.ts';
import { Fifo } from '../fifo.ts';
import { streamImage } from '#local/stream-record.ts';
import { itemSize } from './item-size.ts';
import { deepEqual, type Item, keyString } from './values.ts';

export type StreamViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';
export type StreamEventName = 'INSERT' | 'MODIFY' | 'REMOVE';

export interface StreamOptions {
  readonly viewType: StreamViewType;
  readonly shards?: number;
  readonly propagationMs?: number;
}

export const STREAM_DEFAULTS = {
  /**
   * DynamoDB sizes a stream's shards from the table's partitions, which the model does not track;
   * a few keep per-shard ordering and parallel consumers meaningful without pretending to know
   * how many a real table would get.
   */
  shards: 4,
  /**
   * AWS publishes no figure for how soon a write shows in the stream ("near-real time"); 100 ms
   * is the model's assumption.
   */
  propagationMs: 100,
  retentionMs: 24 * 3_600_000,
} as const;

/** One change, as the stream holds it until read. */
export interface ChangeRecord {
  /** Its place in its shard, the consumer's checkpoint unit. */
  readonly position: number;
  readonly sequence: number;
  readonly eventName: StreamEventName;
  readonly keys: Item;
  readonly newImage: Item | undefined;
  readonly oldImage: Item | undefined;
  readonly sizeBytes: number;
  readonly writtenAt: number;
  readonly readableAt: number;
  /** FNV-1a of the partition key: the shard, and a parallel consumer's lane, come from it. */
  readonly hash: number;
}

export class StreamShard {
  private readonly records = new Fifo<ChangeRecord>();
  trimmed = 0;

  constructor(
    readonly id: string,
    readonly index: number,
  ) {}

  get start(): number {
    return this.records.start;
  }

  get end(): number {
    return this.records.end;
  }

  get retained(): number {
    return this.records.size;
  }

  get slots(): number {
    return this.records.slots;
  }

  at(position: number): ChangeRecord | undefined {
    return this.records.at(position);
  }

  /** The position after the last record readable at `now` (records become readable in write order). */
  readableEnd(now: number): number {
    let lo = this.records.start;
    let hi = this.records.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.records.at(mid) as ChangeRecord).readableAt <= now) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The consumer's checkpoint: nothing before it will be read again. The model has one consumer
   * per stream (the fan-out), so its checkpoint frees the records; DynamoDB keeps them 24 hours
   * whoever has read them, which costs nothing the model measures.
   */
  release(position: number): void {
    this.records.releaseBefore(position);
  }

  append(record: ChangeRecord, retainFrom: number): void {
    this.records.push(record);
    let oldest = this.records.peek();
    while (oldest && oldest.writtenAt < retainFrom) {
      this.trimmed++;
      this.records.releaseBefore(oldest.position + 1);
      oldest = this.records.peek();
    }
  }
}

export interface StreamStats {
  readonly records: number;
  readonly retained: number;
  readonly slots: number;
  readonly trimmed: number;
}

export class TableStream {
  readonly viewType: StreamViewType;
  readonly propagationMs: number;
  readonly shards: readonly StreamShard[];
  readonly arn: string;
  private sequence = 0;

  constructor(
    readonly tableName: string,
    private readonly keyNames: readonly string[],
    private readonly time: SimTime,
    options: StreamOptions,
  ) {
    this.viewType = options.viewType;
    this.propagationMs = options.propagationMs ?? STREAM_DEFAULTS.propagationMs;
    const count = options.shards ?? STREAM_DEFAULTS.shards;
    if (!Number.isInteger(count) || count < 1) throw new Error(`a stream needs at least one shard, not ${count}`);
    const label = new Date(time.now()).toISOString().replace(/Z$/, '');
    this.arn = `arn:aws:dynamodb:us-east-1:000000000000:table/${tableName}/stream/${label}`;
    this.shards = Array.from({ length: count }, (_, i) => new StreamShard(`shardId-${String(i).padStart(20, '0')}`, i));
  }

  /**
   * Called by the table on every stored change. A write that leaves the item as it was writes no
   * record, as DynamoDB does; so does deleting an absent item.
   */
  append(key: Item, old: Item | undefined, next: Item | undefined): void {
    if (!old && !next) return;
    if (old && next && deepEqual(old, next)) return;
    const eventName: StreamEventName = !old ? 'INSERT' : !next ? 'REMOVE' : 'MODIFY';
    const keys: Item = {};
    for (const k of this.keyNames) keys[k] = key[k];
    const withNew = this.viewType === 'NEW_IMAGE' || this.viewType === 'NEW_AND_OLD_IMAGES';
    const withOld = this.viewType === 'OLD_IMAGE' || this.viewType === 'NEW_AND_OLD_IMAGES';
    const newImage = withNew ? next : undefined;
    const oldImage = withOld ? old : undefined;
    const hash = fnv1a(keyString(key[this.keyNames[0] as string]));
    const shard = this.shards[hash % this.shards.length] as StreamShard;
    const now = this.time.now();
    shard.append(
      {
        position: shard.end,
        sequence: ++this.sequence,
        eventName,
        keys,
        newImage,
        oldImage,
        sizeBytes: itemSize(keys) + itemSize(newImage) + itemSize(oldImage),
        writtenAt: now,
        readableAt: now + this.propagationMs,
        hash,
      },
      now - STREAM_DEFAULTS.retentionMs,
    );
  }

  /** A record in the JSON shape DynamoDB Streams and Lambda hand a function. */
  lambdaRecord(r: ChangeRecord): DynamoDBRecord {
    return {
      eventID: r.sequence.toString(16).padStart(32, '0'),
      eventName: r.eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: this.arn,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(r.writtenAt / 1000),
        Keys: image(r.keys),
        ...(r.newImage ? { NewImage: image(r.newImage) } : {}),
        ...(r.oldImage ? { OldImage: image(r.oldImage) } : {}),
        SequenceNumber: sequenceNumber(r.sequence),
        SizeBytes: r.sizeBytes,
        StreamViewType: this.viewType,
      },
    };
  }

  /** Every retained record, shard by shard in order, as Lambda would hand them over: for tests and audits. */
  snapshot(): DynamoDBRecord[][] {
    return this.shards.map((s) => {
      const out: DynamoDBRecord[] = [];
      for (let p = s.start; p < s.end; p++) out.push(this.lambdaRecord(s.at(p) as ChangeRecord));
      return out;
    });
  }

  stats(): StreamStats {
    let retained = 0;
    let slots = 0;
    let trimmed = 0;
    for (const s of this.shards) {
      retained += s.retained;
      slots += s.slots;
      trimmed += s.trimmed;
    }
    return { records: this.sequence, retained, slots, trimmed };
  }
}

/** Decimal, fixed width, so sequence numbers order as strings too (real ones are 21 digits or more). */
export function sequenceNumber(sequence: number): string {
  return `1${String(sequence).padStart(20, '0')}`;
}

/** An item as stream JSON, as the local runtime's change feed gives it (binary as base64, as in Lambda's event). */
function image(item: Item): Record<string, AttributeValue> {
  return streamImage(marshall(item, { removeUndefinedValues: true }));
}

function fnv1a(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

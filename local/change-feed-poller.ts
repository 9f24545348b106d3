import {
  BatchWriteItemCommand,
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { entryFromItem, sameStamp, type ChangeFeed, type FeedEntry } from './change-feed.ts';
import type { Invoke } from './lambda-context.ts';
import { insertRecord } from './stream-record.ts';

export interface ChangeFeedPollerOptions {
  readonly dynamodb: DynamoDBClient;
  readonly feed: ChangeFeed;
  readonly handler: Invoke<DynamoDBStreamEvent, DynamoDBBatchResponse | undefined>;
  /** The Lambda context of each invocation (lambdaContext of the function the mapping invokes). */
  readonly context: () => Context;
  readonly onError: (error: unknown) => void;
  /** Records per invocation at most; 100, as a DynamoDB event source mapping's default. */
  readonly batchSize?: number;
  /** The pause after a round that found nothing to hand over. */
  readonly pollIntervalMs?: number;
  /**
   * How long an entry whose insert is not (yet) visible is waited for before it is given up
   * as an insert that never happened. It must exceed the longest a PutItem can take from its
   * entry to being applied, SDK retries included: an insert landing later is lost.
   */
  readonly settleMs?: number;
  /** The pause before a failed invocation (a throw, batchItemFailures) or round is tried again. */
  readonly retryDelayMs?: number;
  readonly streamArn?: string;
  readonly now?: () => number;
}

/** After a round: more may be waiting (go on at once), nothing was (poll again later), or the handler failed (try again after the retry delay). */
type RoundEnd = 'more' | 'idle' | 'retry';

interface Ready {
  readonly entry: FeedEntry;
  readonly item: Record<string, AttributeValue>;
  /**
   * Other entries of the same insert: attempts that carried the same stamp (a publish batch that
   * holds one event id twice puts it twice, in one millisecond, with one creation time), of which
   * one landed. One record for all, and all of them go with it.
   */
  readonly twins: FeedEntry[];
}

/**
 * Does for the change feed what Lambda's DynamoDB stream event source mapping does: hand the
 * inserts over in order, at least once, one batch at a time, checkpointing past a batch only
 * once the handler succeeded with it (or up to the record batchItemFailures names first).
 *
 * Each entry is judged on its own item, never held behind another entry: an item carries one
 * stamp at a time, so of the entries for one id only the insert it now holds is ready, and
 * another can become ready only once that item is gone — after it. Per-item order, all a
 * stream promises across items, thus holds without waiting. An entry not (yet) ready is
 * stepped over, so a refused insert or a killed writer delays no one; ready entries go to the
 * handler in entry order. Unlike a stream, an item deleted before it was read gives no record
 * (events go by TTL, days later). Run one poller per feed: two would both hand over.
 */
export class ChangeFeedPoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Ends the pause of a poll that found nothing (never the pause before a retry). */
  private wakePoll: (() => void) | undefined;
  /** A nudge that came while a round was under way: the next round starts without the pause. */
  private nudged = false;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly retryDelayMs: number;
  private readonly settleMs: number;
  private readonly streamArn: string;
  private readonly now: () => number;

  constructor(private readonly options: ChangeFeedPollerOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.settleMs = options.settleMs ?? 30_000;
    this.streamArn =
      options.streamArn ?? `arn:aws:dynamodb:us-east-1:000000000000:table/${options.feed.watchedTable}/stream/local`;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Looks again now instead of after the poll interval: the runtime's recorder calls it when an
   * insert has landed, so an event reaches the fan-out in the time of a round, not of a poll
   * (Lambda polls a stream 4 times a second; locally every poll is a query of the store).
   */
  nudge(): void {
    this.nudged = true;
    this.wakePoll?.();
  }

  /** Resolves once the round in flight (an invocation and its checkpoint included) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let next: RoundEnd;
      this.nudged = false;
      try {
        next = await this.round();
      } catch (error) {
        if (!this.running) return;
        this.options.onError(error);
        next = 'retry';
      }
      if (!this.running || next === 'more' || (next === 'idle' && this.nudged)) continue;
      // Only an idle pause ends early on a nudge: a retry waits its whole delay.
      await this.sleep(next === 'idle' ? this.pollIntervalMs : this.retryDelayMs, next === 'idle');
    }
  }

  private sleep(ms: number, poll: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const wakePoll = () => {
        this.wakePoll = undefined;
        done();
      };
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
      this.wakePoll = poll ? wakePoll : undefined;
    });
  }

  /** One batch, and what comes after it. */
  private async round(): Promise<RoundEnd> {
    // Taken before the reads, so an entry is given up only if its item was still missing
    // settleMs or more after it was written.
    const now = this.now();
    const { ready, givenUp, full } = await this.collect(now);
    let handled = ready.length;
    if (ready.length > 0) handled = await this.invoke(ready);
    await this.remove([...ready.slice(0, handled).flatMap((r) => [r.entry, ...r.twins]), ...givenUp]);
    if (handled < ready.length) return 'retry';
    return full ? 'more' : 'idle';
  }

  /** The oldest ready entries (up to batchSize), stepping over the ones still waiting. */
  private async collect(now: number): Promise<{ ready: Ready[]; givenUp: FeedEntry[]; full: boolean }> {
    const { dynamodb, feed } = this.options;
    const ready: Ready[] = [];
    const byInsert = new Map<string, Ready>();
    const givenUp: FeedEntry[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamodb.send(
        new QueryCommand({
          TableName: feed.feedTable,
          KeyConditionExpression: 'feed = :f',
          ExpressionAttributeValues: { ':f': { S: feed.watchedTable } },
          ConsistentRead: true,
          Limit: this.batchSize,
          ExclusiveStartKey: start,
        }),
      );
      const entries = (page.Items ?? []).map(entryFromItem);
      const items = await Promise.all(
        entries.map(
          async (e) =>
            (
              await dynamodb.send(
                new GetItemCommand({ TableName: feed.watchedTable, Key: e.key, ConsistentRead: true }),
              )
            ).Item,
        ),
      );
      for (const [i, entry] of entries.entries()) {
        const item = items[i];
        if (item && sameStamp(item[feed.stampAttribute], entry.stamp)) {
          const insert = JSON.stringify([entry.key, entry.stamp]);
          const first = byInsert.get(insert);
          if (first) {
            first.twins.push(entry);
            continue;
          }
          const r: Ready = { entry, item, twins: [] };
          byInsert.set(insert, r);
          ready.push(r);
          if (ready.length === this.batchSize) return { ready, givenUp, full: true };
        } else if (now - entry.at >= this.settleMs) givenUp.push(entry);
      }
      start = page.LastEvaluatedKey;
    } while (start && this.running);
    return { ready, givenUp, full: false };
  }

  /** Invokes the handler; returns how many records, from the first, are done with. */
  private async invoke(ready: readonly Ready[]): Promise<number> {
    const records = ready.map((r) => insertRecord(r.entry, r.item, this.streamArn));
    let response: DynamoDBBatchResponse | undefined;
    try {
      response = await this.options.handler({ Records: records }, this.options.context());
    } catch (error) {
      this.options.onError(error);
      return 0;
    }
    let done = records.length;
    for (const failure of response?.batchItemFailures ?? []) {
      const at = records.findIndex((r) => r.dynamodb?.SequenceNumber === failure.itemIdentifier);
      // As Lambda does: a failure naming no record of the batch fails the whole batch.
      if (at < 0) {
        this.options.onError(new Error(`batchItemFailures names no record of the batch: ${failure.itemIdentifier}`));
        return 0;
      }
      done = Math.min(done, at);
    }
    return done;
  }

  private async remove(entries: readonly FeedEntry[]): Promise<void> {
    const { dynamodb, feed } = this.options;
    for (let i = 0; i < entries.length; i += 25) {
      let pending = entries.slice(i, i + 25).map((e) => ({
        DeleteRequest: { Key: { feed: { S: feed.watchedTable }, seq: { S: e.seq } } },
      }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        // Deletes left undone leave their records to be handed over again: at least once, never lost.
        if (attempt === 5) throw new Error(`change feed: ${pending.length} entries not deleted after 5 attempts`);
        if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        const out = await dynamodb.send(new BatchWriteItemCommand({ RequestItems: { [feed.feedTable]: pending } }));
        pending = (out.UnprocessedItems?.[feed.feedTable] ?? []) as typeof pending;
      }
    }
  }
}

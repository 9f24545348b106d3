import { randomBytes } from 'node:crypto';
import { PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localResourceName, TABLES } from '#config/topology.ts';
import { ensureTable, type TableShape, type TableWait } from './provision.ts';

/**
 * A table's inserts as the runtime's stand-in for its DynamoDB stream records them: the embedded
 * dynalite has no streams, so a write-ahead entry goes into a table of the same store before
 * each insert, and a ChangeFeedPoller turns the entries whose insert took place into records.
 */
export interface ChangeFeed {
  /** The local-only table holding the entries (ensureFeedTable); not in the topology: AWS has a stream. */
  readonly feedTable: string;
  /** The table whose inserts are recorded; its name is also the entries' partition, so feeds can share a table. */
  readonly watchedTable: string;
  /** The watched table's partition key (the events table: `id`); a table with a sort key is not supported. */
  readonly keyAttribute: string;
  /**
   * An attribute each insert attempt sets to a value of its own (events: `createdAt`, set at
   * publish): the item carrying an entry's stamp is that entry's insert, not an earlier or later one.
   */
  readonly stampAttribute: string;
}

/** The events table's feed, as the local runtime records and reads it: inserts told apart by their `createdAt`. */
export function eventsFeed(prefix = ''): ChangeFeed {
  return {
    feedTable: feedTableName(prefix),
    watchedTable: localResourceName(TABLES.events, prefix),
    keyAttribute: 'id',
    stampAttribute: 'createdAt',
  };
}

/** Whether a table is a change feed's (what a meter of AWS calls leaves out: a stream is free to read for Lambda). */
export function isFeedTable(name: string): boolean {
  return name.endsWith(FEED_TABLE);
}

const FEED_TABLE = 'hookline-local-change-feed';

/** The feed's table, local only (AWS has the stream): entries by watched table, oldest first. */
const FEED_TABLE_SHAPE: TableShape = {
  localName: FEED_TABLE,
  partitionKey: { name: 'feed', type: 'S' },
  sortKey: { name: 'seq', type: 'S' },
  indexes: [],
};

/** The local name of the feed table under a resource prefix, next to the topology's tables. */
export function feedTableName(prefix = ''): string {
  return localResourceName(FEED_TABLE_SHAPE, prefix);
}

/** Creates the feed table under `prefix` as the topology's tables are (ensureTable), if it is missing. */
export function ensureFeedTable(db: DynamoDBClient, prefix = '', wait?: TableWait): Promise<void> {
  return ensureTable(db, FEED_TABLE_SHAPE, prefix, wait);
}

/** One recorded insert attempt. */
export interface FeedEntry {
  /** The sort key, also the record's SequenceNumber: entries sort by the time they were written. */
  readonly seq: string;
  /** When the entry was written, epoch ms: its age decides when an insert that never landed is given up. */
  readonly at: number;
  readonly key: Record<string, AttributeValue>;
  readonly stamp: AttributeValue;
}

/**
 * `<epoch ms, 15 digits>#<item id>#<random>`. The random tail is not decoration: two attempts
 * at one id in the same millisecond would otherwise share a key, and the second entry would
 * overwrite the first — losing the record if the first was the insert that took place.
 */
export function entrySeq(at: number, id: string): string {
  return `${String(at).padStart(15, '0')}#${id}#${randomBytes(4).toString('hex')}`;
}

export async function writeEntry(db: DynamoDBClient, feed: ChangeFeed, entry: FeedEntry): Promise<void> {
  await db.send(
    new PutItemCommand({
      TableName: feed.feedTable,
      Item: {
        feed: { S: feed.watchedTable },
        seq: { S: entry.seq },
        at: { N: String(entry.at) },
        key: { M: entry.key },
        stamp: entry.stamp,
      },
    }),
  );
}

export function entryFromItem(item: Record<string, AttributeValue>): FeedEntry {
  return { seq: item.seq!.S!, at: Number(item.at!.N), key: item.key!.M!, stamp: item.stamp! };
}

/** Whether two stamps are the same value (S, N or B; a stamp of another type compares by its JSON). */
export function sameStamp(a: AttributeValue | undefined, b: AttributeValue): boolean {
  if (!a) return false;
  if (a.S !== undefined || b.S !== undefined) return a.S === b.S;
  if (a.N !== undefined || b.N !== undefined)
    return a.N !== undefined && b.N !== undefined && Number(a.N) === Number(b.N);
  if (a.B !== undefined || b.B !== undefined)
    return a.B !== undefined && b.B !== undefined && Buffer.from(a.B).equals(Buffer.from(b.B));
  return JSON.stringify(a) === JSON.stringify(b);
}

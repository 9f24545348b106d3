import { isFeedTable } from '#local/change-feed.ts';
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TABLES, type TableDef, type TableKey } from '#config/topology.ts';
import { gsiWriteUnits } from './gsi-writes.ts';
import { itemSize } from './item-size.ts';

type Item = Record<string, AttributeValue>;
type Consumed = { CapacityUnits?: number };

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const TABLE_BY_NAME = new Map(
  Object.entries(TABLES).map(([key, def]) => [def.localName as string, [key as TableKey, def as TableDef] as const]),
);
/** SQS bills each 64 KB chunk of a request's payload as one request. */
const SQS_CHUNK = 64 * 1024;

export interface CallUsage {
  count: number;
  /** Requests as billed: SQS counts every 64 KB of payload as one request, idle receives left out; for the rest, `count`. */
  billedRequests: number;
  writeUnits: number;
  readUnits: number;
  /** Index write units computed from the items before and after each write (the emulator reports none). */
  indexWriteUnits: number;
}

/** The items one table received during the run. */
export interface TableItems {
  writes: number;
  /** The largest item written (a put's item; an update's item as read back after it), in DynamoDB's item size. */
  largestBytes: number;
  largestOp: string;
  /** Each key's latest item, deleted keys removed: what the table keeps once the run is over. */
  readonly kept: Map<string, Item>;
}

/** Everything the handlers asked of AWS while the meter was attached. */
export interface Usage {
  /** Keyed `Service Operation target` (target: table or queue name). */
  readonly calls: Record<string, CallUsage>;
  readonly items: Partial<Record<TableKey, TableItems>>;
  /** Conditional writes refused (DynamoDB still charges at least 1 write unit each). */
  conditionFailures: number;
  emptyReceives: number;
  receivesWithMessages: number;
  messagesReceived: number;
  /** Bytes of the S3 objects put (with attachS3). */
  s3PutBytes: number;
}

/** A reading with nothing counted yet. */
export const emptyUsage = (): Usage => ({
  calls: {},
  items: {},
  conditionFailures: 0,
  emptyReceives: 0,
  receivesWithMessages: 0,
  messagesReceived: 0,
  s3PutBytes: 0,
});

// The document client may not have marshalled the input yet where the meter runs: values can still be plain.
const attr = (v: unknown): AttributeValue =>
  v !== null && typeof v === 'object'
    ? (v as AttributeValue)
    : typeof v === 'number'
      ? { N: String(v) }
      : { S: String(v) };
const keyOf = (def: TableDef, source: Record<string, unknown>): Item =>
  Object.fromEntries(
    [def.partitionKey.name, def.sortKey?.name].filter((k): k is string => !!k).map((k) => [k, attr(source[k])]),
  );
const keyString = (def: TableDef, item: Item) => JSON.stringify(keyOf(def, item));

interface WriteTarget {
  readonly table: readonly [TableKey, TableDef];
  readonly key: Item;
  readonly kind: 'put' | 'update' | 'delete';
}

/** The items one write request touches, on the tables the topology knows. */
function writeTargets(op: string, input: Record<string, any>): WriteTarget[] {
  const target = (tableName: string, source: Record<string, unknown>, kind: WriteTarget['kind']): WriteTarget[] => {
    const table = TABLE_BY_NAME.get(tableName);
    return table ? [{ table, key: keyOf(table[1], source), kind }] : [];
  };
  if (op === 'PutItem') return target(input.TableName, input.Item, 'put');
  if (op === 'UpdateItem') return target(input.TableName, input.Key, 'update');
  if (op === 'DeleteItem') return target(input.TableName, input.Key, 'delete');
  if (op === 'BatchWriteItem') {
    return Object.entries(input.RequestItems ?? {}).flatMap(([name, requests]) =>
      (requests as Record<string, any>[]).flatMap((r) =>
        r.PutRequest ? target(name, r.PutRequest.Item, 'put') : target(name, r.DeleteRequest.Key, 'delete'),
      ),
    );
  }
  return [];
}

/** The items a write request carries whole, marshalled (read off the serialized request body). */
function putItems(op: string, body: Record<string, any>): [string, Item][] {
  if (op === 'PutItem') return [[body.TableName, body.Item]];
  if (op === 'BatchWriteItem') {
    return Object.entries(body.RequestItems ?? {}).flatMap(([name, requests]) =>
      (requests as Record<string, any>[])
        .filter((r) => r.PutRequest)
        .map((r): [string, Item] => [name, r.PutRequest.Item]),
    );
  }
  return [];
}

/**
 * Counts every AWS SDK call the real handlers make, by service, operation and target, with
 * middlewares on the runtime's own clients. DynamoDB calls get `ReturnConsumedCapacity: TOTAL`;
 * writes to tables with indexes are bracketed by two uncounted reads so index writes can be
 * computed, and every item written is sized (puts from the request, updates read back after).
 */
export class SdkMeter {
  usage: Usage = emptyUsage();
  /** Called with each item of an indexed table right after a write (retry timing reads nextAttemptAt from it). */
  onIndexedWrite?: (table: TableKey, item: Item) => void;
  private readonly shadow: DynamoDBClient;

  constructor(dynamodbEndpoint: string) {
    this.shadow = new DynamoDBClient({
      endpoint: dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }

  reset(): Usage {
    const previous = this.usage;
    this.usage = emptyUsage();
    return previous;
  }

  close(): void {
    this.shadow.destroy();
  }

  private count(service: string, op: string, target: string, billed = 1): CallUsage {
    const usage = (this.usage.calls[`${service} ${op} ${target}`] ??= {
      count: 0,
      billedRequests: 0,
      writeUnits: 0,
      readUnits: 0,
      indexWriteUnits: 0,
    });
    usage.count++;
    usage.billedRequests += billed;
    return usage;
  }

  private async read(def: TableDef, key: Item): Promise<Item | undefined> {
    return (await this.shadow.send(new GetItemCommand({ TableName: def.localName, Key: key, ConsistentRead: true })))
      .Item;
  }

  /** Notes an item now stored under its key (or the key deleted, with no item). */
  private stored([table, def]: readonly [TableKey, TableDef], op: string, key: Item, item: Item | undefined): void {
    const items = (this.usage.items[table] ??= { writes: 0, largestBytes: 0, largestOp: '', kept: new Map() });
    if (!item) {
      items.kept.delete(JSON.stringify(key));
      return;
    }
    items.writes++;
    items.kept.set(keyString(def, item), item);
    const bytes = itemSize(item);
    if (bytes > items.largestBytes) Object.assign(items, { largestBytes: bytes, largestOp: op });
  }

  /** S3 calls by operation and bucket (the archiver's objects); a PUT's bytes are added to `s3PutBytes`. */
  attachS3(s3: S3Client): void {
    s3.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as { Bucket?: string; Body?: unknown };
        this.count('S3', op, input.Bucket ?? '');
        if (op === 'PutObject') {
          const body = input.Body;
          this.usage.s3PutBytes +=
            typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0;
        }
        return next(args);
      },
      { step: 'initialize', priority: 'low', name: 'hooklineBenchS3Meter' },
    );
  }

  attach(dynamodb: DynamoDBClient, sqs: SQSClient): void {
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Record<string, any>;
        const tableName: string = input.TableName ?? Object.keys(input.RequestItems ?? {})[0] ?? '';
        // The local runtime's stand-in for the events table's stream: on AWS, Lambda reads a stream for free.
        if (isFeedTable(tableName)) return next(args);
        const call = this.count('DynamoDB', op, tableName);
        if (READS.has(op) || WRITES.has(op)) input.ReturnConsumedCapacity = 'TOTAL';
        const targets = WRITES.has(op) ? writeTargets(op, input) : [];
        const indexed = (t: WriteTarget) => t.table[1].indexes.length > 0;
        const before = await Promise.all(targets.map((t) => (indexed(t) ? this.read(t.table[1], t.key) : undefined)));
        let output: Awaited<ReturnType<typeof next>>;
        try {
          output = await next(args);
        } catch (error) {
          if ((error as Error).name === 'ConditionalCheckFailedException') this.usage.conditionFailures++;
          throw error;
        }
        const consumed = (output.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
        for (const c of [consumed ?? []].flat()) {
          if (READS.has(op)) call.readUnits += c.CapacityUnits ?? 0;
          else call.writeUnits += c.CapacityUnits ?? 0;
        }
        await Promise.all(
          targets.map(async (t, i) => {
            // An update's request does not say what the whole item became: read it back.
            if (!indexed(t) && t.kind !== 'update') return;
            const after = await this.read(t.table[1], t.key);
            if (t.kind === 'update') this.stored(t.table, op, t.key, after);
            if (!indexed(t)) return;
            call.indexWriteUnits += Object.values(gsiWriteUnits(t.table[1], before[i], after)).reduce(
              (a, b) => a + b,
              0,
            );
            if (after) this.onIndexedWrite?.(t.table[0], after);
          }),
        );
        for (const t of targets) if (t.kind === 'delete') this.stored(t.table, op, t.key, undefined);
        return output;
      },
      { step: 'serialize', priority: 'high', name: 'hooklineBenchMeter' },
    );
    // After serialization the request body holds the put items exactly as DynamoDB stores them.
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const output = await next(args);
        // The body is JSON text, as a string or as bytes (the SDK's JsonBytesStringAdapter).
        const raw = (args.request as { body?: unknown }).body;
        const body =
          typeof raw === 'string' ? raw : raw instanceof Uint8Array ? new TextDecoder().decode(raw) : undefined;
        if ((op === 'PutItem' || op === 'BatchWriteItem') && body !== undefined) {
          const unprocessed = new Set(
            putItems(op, { RequestItems: (output.output as Record<string, any>).UnprocessedItems }).map(([, item]) =>
              JSON.stringify(item),
            ),
          );
          for (const [name, item] of putItems(op, JSON.parse(body))) {
            const table = TABLE_BY_NAME.get(name);
            if (table && !unprocessed.has(JSON.stringify(item))) this.stored(table, op, keyOf(table[1], item), item);
          }
        }
        return output;
      },
      { step: 'build', priority: 'low', name: 'hooklineBenchItemSizes' },
    );
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as { QueueUrl?: string; MessageBody?: string; Entries?: { MessageBody?: string }[] };
        const sent = [input.MessageBody ?? '', ...(input.Entries ?? []).map((e) => e.MessageBody ?? '')].reduce(
          (s, b) => s + Buffer.byteLength(b),
          0,
        );
        const receive = op === 'ReceiveMessage';
        const call = this.count(
          'SQS',
          op,
          (input.QueueUrl ?? '').split('/').pop() ?? '',
          receive ? 0 : Math.max(1, Math.ceil(sent / SQS_CHUNK)),
        );
        const output = await next(args);
        if (receive) {
          const messages = (output.output as { Messages?: { Body?: string }[] }).Messages ?? [];
          const received = messages.reduce((s, m) => s + Buffer.byteLength(m.Body ?? ''), 0);
          // An empty (idle) receive is a fixed cost per queue, not per delivery: left out of billedRequests.
          if (messages.length > 0) call.billedRequests += Math.max(1, Math.ceil(received / SQS_CHUNK));
          if (messages.length === 0) this.usage.emptyReceives++;
          else {
            this.usage.receivesWithMessages++;
            this.usage.messagesReceived += messages.length;
          }
        }
        return output;
      },
      { step: 'initialize', priority: 'low', name: 'hooklineBenchMeter' },
    );
  }
}

import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TABLES, type TableDef, type TableKey } from '#config/topology.ts';
import { gsiWriteUnits } from './gsi-writes.ts';

type Item = Record<string, AttributeValue>;
type Consumed = { CapacityUnits?: number };

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const TABLE_BY_NAME = new Map(Object.entries(TABLES).map(([key, def]) => [def.localName as string, [key as TableKey, def as TableDef] as const]));

export interface CallUsage {
  count: number;
  writeUnits: number;
  readUnits: number;
  /** Index write units computed from the items before and after each write (the emulator reports none). */
  indexWriteUnits: number;
}

/** Everything the handlers asked of AWS while the meter was attached. */
export interface Usage {
  /** Keyed `Service Operation target` (target: table or queue name). */
  readonly calls: Record<string, CallUsage>;
  /** Conditional writes refused (DynamoDB still charges at least 1 write unit each). */
  conditionFailures: number;
  emptyReceives: number;
  receivesWithMessages: number;
  messagesReceived: number;
}

const emptyUsage = (): Usage => ({ calls: {}, conditionFailures: 0, emptyReceives: 0, receivesWithMessages: 0, messagesReceived: 0 });

/**
 * Counts every AWS SDK call the real handlers make, by service, operation and target, with
 * a middleware on the runtime's own clients. DynamoDB calls get `ReturnConsumedCapacity: TOTAL`;
 * writes to tables with indexes are bracketed by two uncounted reads so index writes can be computed.
 */
export class SdkMeter {
  usage: Usage = emptyUsage();
  /** Called with each item of an indexed table right after a write (retry timing reads nextAttemptAt from it). */
  onIndexedWrite?: (table: TableKey, item: Item) => void;
  private readonly shadow: DynamoDBClient;

  constructor(dynamodbEndpoint: string) {
    this.shadow = new DynamoDBClient({ endpoint: dynamodbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  }

  reset(): Usage {
    const previous = this.usage;
    this.usage = emptyUsage();
    return previous;
  }

  close(): void {
    this.shadow.destroy();
  }

  private count(service: string, op: string, target: string): CallUsage {
    const usage = (this.usage.calls[`${service} ${op} ${target}`] ??= { count: 0, writeUnits: 0, readUnits: 0, indexWriteUnits: 0 });
    usage.count++;
    return usage;
  }

  private async read(def: TableDef, key: Item): Promise<Item | undefined> {
    return (await this.shadow.send(new GetItemCommand({ TableName: def.localName, Key: key, ConsistentRead: true }))).Item;
  }

  attach(dynamodb: DynamoDBClient, sqs: SQSClient): void {
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Record<string, any>;
        const tableName: string = input.TableName ?? Object.keys(input.RequestItems ?? {})[0] ?? '';
        const call = this.count('DynamoDB', op, tableName);
        if (READS.has(op) || WRITES.has(op)) input.ReturnConsumedCapacity = 'TOTAL';
        const known = TABLE_BY_NAME.get(tableName);
        const indexed = known && known[1].indexes.length > 0 && WRITES.has(op) ? known : undefined;
        // The document client may not have marshalled the input yet at this step: key values can still be plain.
        const attr = (v: unknown): AttributeValue => (v !== null && typeof v === 'object' ? (v as AttributeValue) : typeof v === 'number' ? { N: String(v) } : { S: String(v) });
        const keyOf = (def: TableDef): Item =>
          Object.fromEntries(
            [def.partitionKey.name, def.sortKey?.name].filter((k): k is string => !!k).map((k) => [k, attr((input.Key ?? input.Item)[k])]),
          );
        const before = indexed ? await this.read(indexed[1], keyOf(indexed[1])) : undefined;
        let output;
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
        if (indexed) {
          const after = await this.read(indexed[1], keyOf(indexed[1]));
          const units = gsiWriteUnits(indexed[1], before, after);
          call.indexWriteUnits += Object.values(units).reduce((a, b) => a + b, 0);
          if (after) this.onIndexedWrite?.(indexed[0], after);
        }
        return output;
      },
      { step: 'serialize', priority: 'high', name: 'hooklineBenchMeter' },
    );
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as { QueueUrl?: string };
        this.count('SQS', op, (input.QueueUrl ?? '').split('/').pop() ?? '');
        const output = await next(args);
        if (op === 'ReceiveMessage') {
          const n = (output.output as { Messages?: unknown[] }).Messages?.length ?? 0;
          if (n === 0) this.usage.emptyReceives++;
          else {
            this.usage.receivesWithMessages++;
            this.usage.messagesReceived += n;
          }
        }
        return output;
      },
      { step: 'initialize', priority: 'low', name: 'hooklineBenchMeter' },
    );
  }
}

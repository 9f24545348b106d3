import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  CreateBucketCommand,
  HeadBucketCommand,
  type BucketLocationConstraint,
  type S3Client,
} from '@aws-sdk/client-s3';
import { BUCKETS, localResourceName, QUEUES, TABLES, type QueueKey, type TableDef } from '#config/topology.ts';

/** What creating a table needs of its definition: the topology's tables, and the local runtime's own (its change feed). */
export type TableShape = Pick<TableDef, 'localName' | 'partitionKey' | 'sortKey' | 'indexes' | 'ttlAttribute'>;

/** The CreateTable input for a table: the same keys, indexes and billing the CDK declares. */
export function createTableInput(def: TableShape, prefix = ''): CreateTableCommandInput {
  const attrs = new Map<string, string>();
  const keys = [def.partitionKey, def.sortKey, ...def.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  for (const k of keys) if (k) attrs.set(k.name, k.type);
  const schema = (pk: TableDef['partitionKey'], sk?: TableDef['sortKey']) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: localResourceName(def, prefix),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType: AttributeType as 'S' | 'N',
    })),
    KeySchema: schema(def.partitionKey, def.sortKey),
    ...(def.indexes.length
      ? {
          GlobalSecondaryIndexes: def.indexes.map((i) => ({
            IndexName: i.indexName,
            KeySchema: schema(i.partitionKey, i.sortKey),
            Projection: {
              ProjectionType: i.projection,
              ...(i.nonKeyAttributes ? { NonKeyAttributes: [...i.nonKeyAttributes] } : {}),
            },
          })),
        }
      : {}),
  };
}

export interface TableWait {
  /** How long a table may take to become ACTIVE (DynamoDB takes seconds; emulators none). */
  readonly timeoutMs: number;
  /** The longest pause between two polls; the first ones are shorter (see waitForActive). */
  readonly intervalMs: number;
}
const TABLE_WAIT: TableWait = { timeoutMs: 120_000, intervalMs: 1_000 };
/** The first pause: an emulator flips a new table to ACTIVE a moment after it answers, DynamoDB takes seconds. */
const FIRST_POLL_MS = 5;

/**
 * Polls DescribeTable until the table and its indexes are ACTIVE: DynamoDB refuses TTL while a
 * table is CREATING. The pause doubles from 5 ms up to `intervalMs`, so the emulators (on their own
 * thread, a table ACTIVE a tick after its creation) cost milliseconds and DynamoDB one poll a second.
 */
export async function waitForActive(db: DynamoDBClient, table: string, wait: TableWait = TABLE_WAIT): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  for (let pause = Math.min(FIRST_POLL_MS, wait.intervalMs); ; pause = Math.min(pause * 2, wait.intervalMs)) {
    const { Table } = await db.send(new DescribeTableCommand({ TableName: table }));
    const status = Table?.TableStatus;
    // Its indexes too: the sweeper and the listings query them from the first request on.
    if (status === 'ACTIVE' && (Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')) return;
    if (Date.now() + pause > deadline) throw new Error(`table ${table} is still ${status} after ${wait.timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Turns TTL on (once: an already-enabled TTL is left alone, so a restart changes nothing).
 * dynalite has no UpdateTimeToLive and answers UnknownOperationException; that answer alone is
 * ignored, so against DynamoDB Local or a real account a refusal is an error, not a silent "off".
 */
export async function ensureTtl(db: DynamoDBClient, table: string, attribute: string): Promise<void> {
  const current = (await db.send(new DescribeTimeToLiveCommand({ TableName: table }))).TimeToLiveDescription;
  if (
    (current?.TimeToLiveStatus === 'ENABLED' || current?.TimeToLiveStatus === 'ENABLING') &&
    current.AttributeName === attribute
  )
    return;
  try {
    await db.send(
      new UpdateTimeToLiveCommand({
        TableName: table,
        TimeToLiveSpecification: { AttributeName: attribute, Enabled: true },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'UnknownOperationException') throw error;
  }
}

/** Creates the table if it is missing, waits until it is ACTIVE, then makes sure TTL is on. */
export async function ensureTable(db: DynamoDBClient, def: TableShape, prefix = '', wait?: TableWait): Promise<void> {
  const name = localResourceName(def, prefix);
  try {
    await db.send(new DescribeTableCommand({ TableName: name }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    try {
      await db.send(new CreateTableCommand(createTableInput(def, prefix)));
    } catch (created) {
      // Another process sharing the endpoint created it in between: as good as ours.
      if ((created as Error).name !== 'ResourceInUseException') throw created;
    }
  }
  // Also after a restart: the table may still be CREATING, or TTL may not have been set yet.
  await waitForActive(db, name, wait);
  if (def.ttlAttribute) await ensureTtl(db, name, def.ttlAttribute);
}

/** SQS attributes for a topology queue, including its redrive policy. */
export function queueAttributes(key: QueueKey, redriveArn: string): Record<string, string> {
  const q = QUEUES[key];
  return {
    VisibilityTimeout: String(q.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(q.retentionSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: redriveArn, maxReceiveCount: q.maxReceiveCount }),
  };
}

export interface ProvisionedQueues {
  readonly urls: Record<QueueKey, string>;
  readonly arns: Record<QueueKey, string>;
  readonly redriveUrls: Record<QueueKey, string>;
}

/** Creates (or finds, after a restart) every table and queue of the topology, named under `prefix`. Idempotent. */
export async function provision(
  db: DynamoDBClient,
  sqs: SQSClient,
  prefix = '',
  wait?: TableWait,
): Promise<ProvisionedQueues> {
  for (const def of Object.values(TABLES) as TableDef[]) await ensureTable(db, def, prefix, wait);
  const urls = {} as Record<QueueKey, string>;
  const arns = {} as Record<QueueKey, string>;
  const redriveUrls = {} as Record<QueueKey, string>;
  const arnOf = async (url: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!
      .QueueArn!;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const q = QUEUES[key];
    const redrive = await sqs.send(
      new CreateQueueCommand({
        QueueName: localResourceName(q.redrive, prefix),
        Attributes: { MessageRetentionPeriod: String(q.redrive.retentionSeconds) },
      }),
    );
    redriveUrls[key] = redrive.QueueUrl!;
    const main = await sqs.send(
      new CreateQueueCommand({
        QueueName: localResourceName(q, prefix),
        Attributes: queueAttributes(key, await arnOf(redrive.QueueUrl!)),
      }),
    );
    urls[key] = main.QueueUrl!;
    arns[key] = await arnOf(main.QueueUrl!);
  }
  return { urls, arns, redriveUrls };
}

/** Creates (or finds, after a restart) every bucket of the topology, named under `prefix`. Idempotent. */
export async function provisionBuckets(s3: S3Client, prefix = ''): Promise<void> {
  for (const def of Object.values(BUCKETS)) {
    const bucket = localResourceName(def, prefix);
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch {
      // Outside us-east-1, S3 wants the region named (a real account; the emulator is us-east-1).
      const region = await s3.config.region();
      await s3.send(
        new CreateBucketCommand({
          Bucket: bucket,
          ...(region && region !== 'us-east-1'
            ? { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }
            : {}),
        }),
      );
    }
  }
}

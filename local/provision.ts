import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { BUCKETS, QUEUES, TABLES, type QueueKey, type TableDef } from '#config/topology.ts';

/** The CreateTable input for a topology table: the same keys, indexes and billing the CDK declares. */
export function createTableInput(def: TableDef): CreateTableCommandInput {
  const attrs = new Map<string, string>();
  const keys = [def.partitionKey, def.sortKey, ...def.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  for (const k of keys) if (k) attrs.set(k.name, k.type);
  const schema = (pk: TableDef['partitionKey'], sk?: TableDef['sortKey']) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: def.localName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType: AttributeType as 'S' | 'N' })),
    KeySchema: schema(def.partitionKey, def.sortKey),
    ...(def.indexes.length
      ? {
          GlobalSecondaryIndexes: def.indexes.map((i) => ({
            IndexName: i.indexName,
            KeySchema: schema(i.partitionKey, i.sortKey),
            Projection: { ProjectionType: i.projection },
          })),
        }
      : {}),
  };
}

async function ensureTable(db: DynamoDBClient, def: TableDef): Promise<void> {
  try {
    await db.send(new DescribeTableCommand({ TableName: def.localName }));
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await db.send(new CreateTableCommand(createTableInput(def)));
  if (def.ttlAttribute) {
    await db
      .send(new UpdateTimeToLiveCommand({ TableName: def.localName, TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }))
      .catch(() => undefined); // dynalite does not implement TTL; DynamoDB does.
  }
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

/** Creates (or finds, after a restart) every table and queue of the topology. Idempotent. */
export async function provision(db: DynamoDBClient, sqs: SQSClient): Promise<ProvisionedQueues> {
  for (const def of Object.values(TABLES) as TableDef[]) await ensureTable(db, def);
  const urls = {} as Record<QueueKey, string>;
  const arns = {} as Record<QueueKey, string>;
  const redriveUrls = {} as Record<QueueKey, string>;
  const arnOf = async (url: string) =>
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const q = QUEUES[key];
    const redrive = await sqs.send(
      new CreateQueueCommand({ QueueName: q.redrive.localName, Attributes: { MessageRetentionPeriod: String(q.redrive.retentionSeconds) } }),
    );
    redriveUrls[key] = redrive.QueueUrl!;
    const main = await sqs.send(new CreateQueueCommand({ QueueName: q.localName, Attributes: queueAttributes(key, await arnOf(redrive.QueueUrl!)) }));
    urls[key] = main.QueueUrl!;
    arns[key] = await arnOf(main.QueueUrl!);
  }
  return { urls, arns, redriveUrls };
}

/** Creates (or finds, after a restart) every bucket of the topology. Idempotent. */
export async function provisionBuckets(s3: S3Client): Promise<void> {
  for (const def of Object.values(BUCKETS)) {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: def.localName }));
    } catch {
      await s3.send(new CreateBucketCommand({ Bucket: def.localName }));
    }
  }
}

import {
  DeleteCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ArchiveBatch, ArchiveManifestStore } from '#ports/archive.ts';
import { conditionHeld, isConditionFailure } from './dynamodb.ts';

/** Archive object keys start with `deliveries/`, so this key can never be a batch. */
const LOCK_KEY = '#lock';

/** The archiver's unfinished batches (normally none) and its run lock, in one small table. */
export class DynamoDbArchiveManifestStore implements ArchiveManifestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(batch: ArchiveBatch): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: batch }));
  }

  async setPhase(objectKey: string, phase: ArchiveBatch['phase']): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { objectKey },
        UpdateExpression: 'SET #p = :p',
        ConditionExpression: 'attribute_exists(objectKey)',
        ExpressionAttributeNames: { '#p': 'phase' },
        ExpressionAttributeValues: { ':p': phase },
      }),
    );
  }

  async delete(objectKey: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { objectKey } }));
  }

  async list(): Promise<readonly ArchiveBatch[]> {
    const batches: ArchiveBatch[] = [];
    let key: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({
          TableName: this.table,
          ConsistentRead: true,
          FilterExpression: 'objectKey <> :lock',
          ExpressionAttributeValues: { ':lock': LOCK_KEY },
          ExclusiveStartKey: key,
        }),
      );
      batches.push(...((out.Items ?? []) as ArchiveBatch[]));
      key = out.LastEvaluatedKey;
    } while (key);
    return batches.sort((a, b) => a.objectKey.localeCompare(b.objectKey));
  }

  async lock(owner: string, untilIso: string, nowIso: string): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { objectKey: LOCK_KEY, owner, until: untilIso },
          ConditionExpression: 'attribute_not_exists(objectKey) OR #until < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#until': 'until', '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': nowIso, ':owner': owner },
        }),
      ),
    );
  }

  async unlock(owner: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { objectKey: LOCK_KEY },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

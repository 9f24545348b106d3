import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { BeginResult, IdempotencyRecord, IdempotencyStore } from '#ports/idempotency-store.ts';
import { conditionHeld, isConditionFailure } from './dynamodb.ts';

/** Tries of `begin` when the record it lost to was gone again by the time it read it (released meanwhile). */
const BEGIN_TRIES = 3;

/**
 * Idempotency-Key records, one item per (scope, route, key) hash. Taking a key is one
 * conditional put, so two concurrent first requests cannot both run; TTL drops records a while
 * after `expiresAt`, which is why the condition also treats a record past it as absent.
 */
export class DynamoDbIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async begin(
    record: IdempotencyRecord & { owner: string; lockedUntil: string },
    nowIso: string,
  ): Promise<BeginResult> {
    for (let tries = 1; ; tries++) {
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: record,
            ConditionExpression:
              'attribute_not_exists(id) OR expiresAt <= :nowS OR (attribute_not_exists(#response) AND lockedUntil < :now AND fingerprint = :fp)',
            ExpressionAttributeNames: { '#response': 'response' },
            ExpressionAttributeValues: {
              ':nowS': Math.floor(Date.parse(nowIso) / 1000),
              ':now': nowIso,
              ':fp': record.fingerprint,
            },
          }),
        );
        return { kind: 'started' };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const out = await this.db.send(
          new GetCommand({ TableName: this.table, Key: { id: record.id }, ConsistentRead: true }),
        );
        if (out.Item) return { kind: 'exists', record: out.Item as IdempotencyRecord };
        if (tries >= BEGIN_TRIES) throw error;
      }
    }
  }

  async complete(id: string, owner: string, response: NonNullable<IdempotencyRecord['response']>): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #response = :response REMOVE #owner, lockedUntil',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#response': 'response', '#owner': 'owner' },
          ExpressionAttributeValues: { ':response': response, ':owner': owner },
        }),
      ),
    );
  }

  async release(id: string, owner: string): Promise<void> {
    await conditionHeld(
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { id },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }
}

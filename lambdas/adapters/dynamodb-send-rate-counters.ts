import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SendRateCounters } from '#ports/send-rate-counters.ts';
import { ifConditionHolds } from './dynamodb.ts';

/**
 * The send-rate counters in the rate-limits table (`key`, TTL `expiresAt`), beside the customer
 * limits' fixed windows: the caller's keys start `send#`, so the two never meet. Every call is
 * an UpdateItem on one small item, with no read first.
 */
export class DynamoDbSendRateCounters implements SendRateCounters {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async count(key: string, expiresAtSeconds: number): Promise<number> {
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { key },
        // Unconditional: an attempt past the quota is counted too, and its count is its place in the sub-window.
        UpdateExpression: 'ADD #count :one SET #exp = :exp',
        ExpressionAttributeNames: { '#count': 'count', '#exp': 'expiresAt' },
        ExpressionAttributeValues: { ':one': 1, ':exp': expiresAtSeconds },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.count);
  }

  async takeTurn(key: string, earliest: number, expiresAtSeconds: number): Promise<number> {
    const names = { '#next': 'next', '#exp': 'expiresAt' };
    // A queue already past `earliest` (a backlog) moves on by one: one write. An empty or stale one
    // restarts at `earliest`: the first write's condition fails and the second sets it. Two racing
    // restarts: one wins and the other goes round again.
    for (let round = 0; round < 3; round++) {
      const moved = await ifConditionHolds(
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { key },
            UpdateExpression: 'ADD #next :one SET #exp = :exp',
            ConditionExpression: '#next >= :earliest',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':one': 1, ':earliest': earliest, ':exp': expiresAtSeconds },
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
      );
      if (moved) return Number(moved.Attributes?.next) - 1;
      const restarted = await ifConditionHolds(
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { key },
            UpdateExpression: 'SET #next = :after, #exp = :exp',
            ConditionExpression: 'attribute_not_exists(#next) OR #next < :earliest',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':after': earliest + 1, ':earliest': earliest, ':exp': expiresAtSeconds },
          }),
        ),
      );
      if (restarted) return earliest;
    }
    // A turn is only a forecast (the sub-window count decides): under a storm of races, the earliest one does.
    return earliest;
  }
}

import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fixedWindow, retryAfterSeconds, type RateDecision, type RateLimit } from '#domain/rate-limit.ts';
import type { RateLimiter } from '#ports/rate-limiter.ts';
import { isConditionFailure } from './dynamodb.ts';

/**
 * Fixed-window counters, one item per key and window: a single conditional ADD per request
 * (no read first, so two concurrent requests can never both take the last slot). TTL removes
 * old windows.
 */
export class DynamoDbRateLimiter implements RateLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(key: string, limit: RateLimit, nowMs: number): Promise<RateDecision> {
    const window = fixedWindow(nowMs, limit.windowSeconds);
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { key: `${key}#${window.startSeconds}` },
          UpdateExpression: 'ADD #count :one SET #exp = :exp',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#exp': 'expiresAt' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit.limit,
            ':exp': Math.ceil(window.resetAtMs / 1000) + 3600,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { kind: 'allowed', remaining: Math.max(0, limit.limit - Number(out.Attributes?.count ?? limit.limit)) };
    } catch (error) {
      if (isConditionFailure(error))
        return { kind: 'limited', retryAfterSeconds: retryAfterSeconds(nowMs, window.resetAtMs) };
      throw error;
    }
  }
}

import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttemptRecord } from '#domain/types.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import { InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { fromCursor } from './cursor.ts';
import { conditionHeld } from './dynamodb.ts';

export class DynamoDbAttemptStore implements AttemptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(attempt: AttemptRecord, expiresAt: number): Promise<boolean> {
    // Conditional: an attempt record is written once and never overwritten, even by a replay.
    return conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...attempt, expiresAt },
          ConditionExpression: 'attribute_not_exists(deliveryId)',
        }),
      ),
    );
  }

  async extendRetention(deliveryId: string, untilEpochSeconds: number): Promise<void> {
    // Keys and TTL only: a replay reads a few bytes per attempt, not its response snippet.
    for await (const items of this.pages(deliveryId, 'deliveryId, seq, expiresAt')) {
      const shorter = items.filter((i) => !(typeof i.expiresAt === 'number' && i.expiresAt >= untilEpochSeconds));
      // Side by side: a bulk replay waits for one round of writes a delivery, however many attempts it has.
      await Promise.all(
        shorter.map((item) =>
          // Refused when the row went meanwhile (an update would make a row of a TTL alone) or another run moved it further.
          conditionHeld(
            this.db.send(
              new UpdateCommand({
                TableName: this.table,
                Key: { deliveryId, seq: item.seq },
                UpdateExpression: 'SET #e = :t',
                ConditionExpression: 'attribute_exists(deliveryId) AND (attribute_not_exists(#e) OR #e < :t)',
                ExpressionAttributeNames: { '#e': 'expiresAt' },
                ExpressionAttributeValues: { ':t': untilEpochSeconds },
              }),
            ),
          ),
        ),
      );
    }
  }

  async list(deliveryId: string): Promise<readonly AttemptRecord[]> {
    const items: AttemptRecord[] = [];
    for await (const page of this.pages(deliveryId))
      items.push(...page.map(({ expiresAt: _e, ...rest }) => rest as unknown as AttemptRecord));
    return items;
  }

  /** A delivery's whole log, a page of rows at a time, oldest first; `projection` names what to read (all without it). */
  private async *pages(deliveryId: string, projection?: string): AsyncGenerator<Record<string, unknown>[]> {
    let key: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'deliveryId = :d',
          ...(projection ? { ProjectionExpression: projection } : {}),
          ExpressionAttributeValues: { ':d': deliveryId },
          ExclusiveStartKey: key,
        }),
      );
      yield out.Items ?? [];
      key = out.LastEvaluatedKey;
    } while (key);
  }

  async latest(deliveryId: string, request: PageRequest): Promise<Page<AttemptRecord>> {
    const startKey = decodeCursor<Record<string, string | number>>(request.cursor);
    // A key from another delivery's log is not this log's cursor: refuse it like any foreign one.
    if (startKey && startKey.deliveryId !== deliveryId) throw new InvalidCursorError();
    // Newest first from the cursor back, then reversed: each page reads oldest first, like the whole log.
    const out = await fromCursor(startKey, () =>
      this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#d = :d',
          ExpressionAttributeNames: { '#d': 'deliveryId' },
          ExpressionAttributeValues: { ':d': deliveryId },
          ScanIndexForward: false,
          Limit: request.limit,
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    const items = (out.Items ?? []).map(({ expiresAt: _e, ...rest }) => rest as AttemptRecord).reverse();
    return out.LastEvaluatedKey ? { items, nextCursor: encodeCursor(out.LastEvaluatedKey)! } : { items };
  }
}

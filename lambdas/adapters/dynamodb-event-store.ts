import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import type { EventRecord } from '#domain/types.ts';
import type { EventStore, PutEventResult } from '#ports/event-store.ts';
import { isConditionFailure } from './dynamodb.ts';

/** Events live until their longest-kept delivery could be archived, plus the TTL margin. */
const EVENT_TTL_DAYS = DEFAULT_RETENTION.deadLetterDays * 2 + DEFAULT_RETENTION.ttlSafetyMarginDays;

export class DynamoDbEventStore implements EventStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(id: string): Promise<EventRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }));
    return out.Item ? (({ expiresAt: _e, ...rest }) => rest as unknown as EventRecord)(out.Item) : undefined;
  }

  async putIfAbsent(event: EventRecord): Promise<PutEventResult> {
    try {
      const expiresAt = Math.floor(Date.parse(event.createdAt) / 1000) + EVENT_TTL_DAYS * 86_400;
      await this.db.send(
        new PutCommand({ TableName: this.table, Item: { ...event, expiresAt }, ConditionExpression: 'attribute_not_exists(id)' }),
      );
      return { kind: 'created' };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const existing = await this.get(event.id);
      if (!existing) throw error;
      return { kind: 'exists', existing };
    }
  }
}

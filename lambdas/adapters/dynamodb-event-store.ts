import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { EventRecord } from '#domain/types.ts';
import type { EventStore, EventSummary, PutEventResult } from '#ports/event-store.ts';
import { decodeBody, encodeBody } from './body-codec.ts';
import { decodeFirstSends, encodeFirstSends } from './first-sends-codec.ts';
import { conditionHeld, isConditionFailure } from './dynamodb.ts';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** Attributes of an event row beyond EventRecord's fields. */
export type EventItem = Omit<EventRecord, 'body' | 'firstSends'> & {
  readonly bodyZ: Uint8Array;
  readonly bodySha256: string;
  readonly expiresAt: number;
  /** `firstSends`, compact (first-sends-codec.ts). */
  readonly fs?: string;
};

/** The row for an event: the body compressed (a 1 KB body is one write unit instead of two) with its sha256. */
export function eventItem(event: EventRecord, expiresAt: number): EventItem {
  const { body, firstSends: _f, ...fields } = event;
  const encoded = encodeBody(body);
  const fs = encodeFirstSends(event);
  return { ...fields, bodyZ: encoded.bytes, bodySha256: encoded.sha256, expiresAt, ...(fs ? { fs } : {}) };
}

/**
 * The event a row holds; a row from before bodies were compressed has the text in `body`, and
 * one an earlier version restored carries `restored: true`, which nothing reads any more.
 */
export function eventFromItem(item: Record<string, unknown>): EventRecord {
  const { expiresAt: _e, restored: _r, bodyZ, bodySha256, body, fs, ...fields } = item;
  const text = bodyZ instanceof Uint8Array ? decodeBody(bodyZ, bodySha256 as string) : (body as string);
  const firstSends = decodeFirstSends(fs as string | undefined, (fields.subscriptionIds as string[] | undefined) ?? []);
  return { ...fields, body: text, ...(firstSends ? { firstSends } : {}) } as unknown as EventRecord;
}

export class DynamoDbEventStore implements EventStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(id: string): Promise<EventRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }));
    return out.Item ? eventFromItem(out.Item) : undefined;
  }

  async getSummaries(ids: readonly string[]): Promise<readonly EventSummary[]> {
    // Each id once, in the order first asked: BatchGetItem refuses duplicate keys and answers in no order.
    const unique = [...new Set(ids)];
    const found: EventSummary[] = [];
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((id) => ({ id }));
      for (let round = 0; keys && keys.length > 0; round++) {
        if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** round)));
        const out: BatchGetCommandOutput = await this.db.send(
          new BatchGetCommand({
            RequestItems: {
              // Listings only: the body stays behind (the same read units, far less to send and nothing to inflate).
              [this.table]: {
                Keys: keys,
                ProjectionExpression:
                  'id, #type, tenantId, #audience, narrowedTo, subscriptionIds, deliveryIds, createdAt',
                ExpressionAttributeNames: { '#type': 'type', '#audience': 'audience' },
              },
            },
          }),
        );
        found.push(...((out.Responses?.[this.table] ?? []) as EventSummary[]));
        keys = out.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    const order = new Map(unique.map((id, i) => [id, i]));
    return found.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  async putIfAbsent(event: EventRecord, expiresAt: number): Promise<PutEventResult> {
    try {
      const item = eventItem(event, expiresAt);
      await this.db.send(
        new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(id)' }),
      );
      return { kind: 'created' };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const existing = await this.get(event.id);
      if (!existing) throw error;
      return { kind: 'exists', existing };
    }
  }

  fromStreamImage(image: Readonly<Record<string, unknown>>): EventRecord {
    return eventFromItem(unmarshall(withBinaryBytes(image) as Record<string, AttributeValue>));
  }

  async extendRetention(eventId: string, untilEpochSeconds: number): Promise<void> {
    // Refused when the row is gone (an update would create a row holding only a TTL) or already
    // kept as long: both are the answer, not a failure. A row without a TTL is kept for ever.
    await conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: eventId },
          UpdateExpression: 'SET #e = :t',
          ConditionExpression: 'attribute_exists(id) AND #e < :t',
          ExpressionAttributeNames: { '#e': 'expiresAt' },
          ExpressionAttributeValues: { ':t': untilEpochSeconds },
        }),
      ),
    );
  }
}

/**
 * A stream image with its top-level binary values as bytes: Lambda's JSON carries them in
 * base64 (`{ "B": "..." }`), which unmarshall would pass on as text. The event row's only
 * binary attribute (bodyZ) is top-level.
 */
function withBinaryBytes(image: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(image).map(([name, value]) => {
      const b = (value as { B?: unknown }).B;
      return [name, typeof b === 'string' ? { B: Buffer.from(b, 'base64') } : value];
    }),
  );
}

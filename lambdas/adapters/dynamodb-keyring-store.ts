import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyringStore, RingKey } from '#ports/keyring-store.ts';
import { ifConditionHolds } from './dynamodb.ts';

/** The keyring in DynamoDB: one item per ring, keyed by its name, created once by a conditional put. */
export class DynamoDbKeyringStore implements KeyringStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(ring: string): Promise<RingKey | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { ring }, ConsistentRead: true }));
    const item = out.Item;
    if (!item) return undefined;
    return {
      ring: item.ring as string,
      encryptedKey: item.encryptedKey as string,
      createdAt: item.createdAt as string,
    };
  }

  async create(key: RingKey): Promise<boolean> {
    const put = this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ring: key.ring, encryptedKey: key.encryptedKey, createdAt: key.createdAt },
        ConditionExpression: 'attribute_not_exists(ring)',
      }),
    );
    return (await ifConditionHolds(put)) !== undefined;
  }
}

import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '#ports/api-key-store.ts';

/** Tenant API keys by the SHA-256 of the key: a leaked table never yields a usable key. */
export class DynamoDbApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(record: ApiKeyRecord): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' }));
  }

  async find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { keyHash } }));
    return out.Item as ApiKeyRecord | undefined;
  }
}

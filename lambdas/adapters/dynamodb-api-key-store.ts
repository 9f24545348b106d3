import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStore } from '#ports/api-key-store.ts';
import { INDEXES } from '#config/topology.ts';
import { ifConditionHolds } from './dynamodb.ts';

/** Tenant API keys by the SHA-256 of the key: a leaked table never yields a usable key. */
export class DynamoDbApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(record: ApiKeyRecord): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' }),
    );
  }

  async find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    // Consistent: a revocation must count from the moment it was written, not from when a replica saw it.
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { keyHash }, ConsistentRead: true }));
    return out.Item as ApiKeyRecord | undefined;
  }

  async listByTenant(tenantId: string): Promise<readonly ApiKeyRecord[]> {
    return this.queryTenant(tenantId);
  }

  async revoke(tenantId: string, keyId: string, nowIso: string): Promise<ApiKeyRecord | undefined> {
    // The index finds the hash the table is keyed by; the update re-checks the tenant.
    const [found] = await this.queryTenant(tenantId, keyId);
    if (!found) return undefined;
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { keyHash: found.keyHash },
          UpdateExpression: 'SET #r = if_not_exists(#r, :now)',
          ConditionExpression: 'attribute_exists(keyHash) AND #t = :t',
          ExpressionAttributeNames: { '#r': 'revokedAt', '#t': 'tenantId' },
          ExpressionAttributeValues: { ':now': nowIso, ':t': tenantId },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return out?.Attributes as ApiKeyRecord | undefined;
  }

  private async queryTenant(tenantId: string, keyId?: string): Promise<ApiKeyRecord[]> {
    const items: ApiKeyRecord[] = [];
    let key: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: INDEXES.apiKeys.byTenant,
          KeyConditionExpression: keyId ? '#t = :t AND #k = :k' : '#t = :t',
          ExpressionAttributeNames: { '#t': 'tenantId', ...(keyId ? { '#k': 'keyId' } : {}) },
          ExpressionAttributeValues: { ':t': tenantId, ...(keyId ? { ':k': keyId } : {}) },
          ExclusiveStartKey: key,
        }),
      );
      items.push(...((out.Items ?? []) as ApiKeyRecord[]));
      key = out.LastEvaluatedKey;
    } while (key);
    return items;
  }
}

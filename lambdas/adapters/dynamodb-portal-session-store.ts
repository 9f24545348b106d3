import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { portalSessionTtlSeconds } from '#domain/portal-session.ts';
import type { PortalSessionRecord, PortalSessionStore } from '#ports/portal-session-store.ts';
import { ifConditionHolds } from './dynamodb.ts';

/** The row without the TTL attribute, which is the table's business, not the record's. */
function record(item: Record<string, unknown> | undefined): PortalSessionRecord | undefined {
  if (!item) return undefined;
  const { expiresAt: _ttl, ...rest } = item;
  return rest as unknown as PortalSessionRecord;
}

/** Portal sessions by id; every change is one conditional write, so a code is exchanged at most once. */
export class DynamoDbPortalSessionStore implements PortalSessionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(session: PortalSessionRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...session, expiresAt: portalSessionTtlSeconds(Date.parse(session.endsAt)) },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
  }

  async get(id: string): Promise<PortalSessionRecord | undefined> {
    // Consistent: a revocation or an exchange must count from the moment it was written.
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }));
    return record(out.Item);
  }

  async exchange(
    id: string,
    codeHash: string,
    tokenHash: string,
    nowIso: string,
  ): Promise<PortalSessionRecord | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #x = :now, #t = :t',
          ConditionExpression: '#c = :c AND attribute_not_exists(#x) AND attribute_not_exists(#r) AND #e > :now',
          ExpressionAttributeNames: {
            '#x': 'exchangedAt',
            '#t': 'tokenHash',
            '#c': 'codeHash',
            '#r': 'revokedAt',
            '#e': 'endsAt',
          },
          ExpressionAttributeValues: { ':now': nowIso, ':t': tokenHash, ':c': codeHash },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return record(out?.Attributes);
  }

  async revoke(tenantId: string, id: string, nowIso: string): Promise<PortalSessionRecord | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #r = if_not_exists(#r, :now)',
          // Another tenant's session id answers like one that does not exist.
          ConditionExpression: 'attribute_exists(id) AND #tenant = :tenant',
          ExpressionAttributeNames: { '#r': 'revokedAt', '#tenant': 'tenantId' },
          ExpressionAttributeValues: { ':now': nowIso, ':tenant': tenantId },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return record(out?.Attributes);
  }
}

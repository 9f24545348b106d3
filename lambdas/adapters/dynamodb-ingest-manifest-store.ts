import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INGEST_MANIFEST_SHARDS } from '#config/topology.ts';
import type { IngestManifest, IngestManifestStore } from '#ports/ingest-manifest-store.ts';

/**
 * Publish batches' write-ahead manifests, keyed `(shard, key)`: a few shards spread the
 * put-and-delete of every batch over partitions, and the sort key lets the sweeper read only
 * the ones older than its grace. The table is normally all but empty.
 */
export class DynamoDbIngestManifestStore implements IngestManifestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(manifest: IngestManifest): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: manifest }));
  }

  async delete(manifest: Pick<IngestManifest, 'shard' | 'key'>): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { shard: manifest.shard, key: manifest.key } }));
  }

  async listBefore(beforeIso: string, limit: number): Promise<readonly IngestManifest[]> {
    const found: IngestManifest[] = [];
    for (let shard = 0; shard < INGEST_MANIFEST_SHARDS && found.length < limit; shard++) {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: '#pk = :pk AND #sk < :before',
            ExpressionAttributeNames: { '#pk': 'shard', '#sk': 'key' },
            ExpressionAttributeValues: { ':pk': `m${shard}`, ':before': beforeIso },
            Limit: limit - found.length,
            ExclusiveStartKey: start,
          }),
        );
        found.push(...((out.Items ?? []) as IngestManifest[]));
        start = out.LastEvaluatedKey;
      } while (start && found.length < limit);
    }
    return found.sort((a, b) => a.key.localeCompare(b.key));
  }
}

import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { gunzipSync } from 'node:zlib';
import { BUCKETS } from '#config/topology.ts';
import { ARCHIVE_PREFIX, decodeArchive, type ArchiveRecord } from '#domain/archive.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { buildDeps } from '#adapters/function-deps.ts';
import type { FunctionDeps } from '#app/deps.ts';
import type { LocalStack } from './local-stack.ts';

/** The archiver's dependencies as the local runtime's archiver gets them (its environment, clients and metrics), uncached. */
export function archiverDepsOf(stack: LocalStack): FunctionDeps<'archiver'> {
  return buildDeps(
    'archiver',
    stack.runtime.env,
    { clients: stack.runtime.clients, metrics: stack.runtime.metrics, subscriptionCacheMs: 0 },
    ALL_FACTORIES,
  );
}

export interface ArchivedObject {
  readonly key: string;
  readonly bytes: number;
  readonly records: readonly ArchiveRecord[];
}

/** Every delivery object in the local archive bucket, read and decoded independently of the archiver's own adapter. */
export async function readArchive(s3: S3Client, bucket: string = BUCKETS.archive.localName): Promise<ArchivedObject[]> {
  const objects: ArchivedObject[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: ARCHIVE_PREFIX, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      const body = await (
        await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }))
      ).Body!.transformToByteArray();
      if (body[0] !== 0x1f || body[1] !== 0x8b) throw new Error(`${o.Key} is not gzip`);
      objects.push({
        key: o.Key!,
        bytes: body.length,
        records: decodeArchive(gunzipSync(body).toString('utf8'), o.Key),
      });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

/** How many times each delivery id appears across the archive. */
export function idCounts(objects: readonly ArchivedObject[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const o of objects) for (const r of o.records) counts.set(r.delivery.id, (counts.get(r.delivery.id) ?? 0) + 1);
  return counts;
}

export const OBJECT_KEY =
  /^deliveries\/dt=(\d{4}-\d{2}-\d{2})\/subscription=(sub_[A-Za-z0-9_-]+)\/part-[0-9a-f]{20}\.ndjson\.gz$/;

/**
 * The write-ahead record of one publish batch: the events it is about to store and the
 * deliveries it is about to send. Written before the events; once the sweeper's grace has
 * passed, the sweeper checks that each delivery was attempted, sends again the ones that were
 * not (a publish that stopped half-way, a lost or purged message) and deletes it. A fresh row
 * stays out of the sweeper's `active` index, so this (one item per batch, not an index entry
 * per delivery) is what stands between a lost message and a delivery nobody looks at.
 */
export interface IngestManifest {
  readonly shard: string;
  /** `<createdAt>#<batch id>`: sorts by time within the shard. */
  readonly key: string;
  readonly createdAt: string;
  readonly eventIds: readonly string[];
  readonly deliveryIds: readonly string[];
}

export interface IngestManifestStore {
  put(manifest: IngestManifest): Promise<void>;
  delete(manifest: Pick<IngestManifest, 'shard' | 'key'>): Promise<void>;
  /** Manifests written before `beforeIso`, oldest first, at most `limit`. */
  listBefore(beforeIso: string, limit: number): Promise<readonly IngestManifest[]>;
}

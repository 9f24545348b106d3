import type { Page, PageRequest } from './page.ts';

/**
 * The record of one publish batch: the events it is about to store (with their types) and the
 * deliveries it is about to send. Written before the events, it does three jobs at no write per
 * event. Publish writes no delivery row, so until a delivery's first attempt writes one, this
 * is where the delivery is read from (app/deliveries/unwritten.ts). Once the sweeper's grace
 * has passed, the sweeper checks that each delivery was attempted and sends again the ones that
 * were not (a publish that stopped half-way, a lost or purged message): this (one item per
 * batch, not a row or an index entry per delivery) is what stands between a lost message and a
 * delivery nobody looks at. And kept until its events' TTL, the manifests are the time-ordered event log
 * `GET /v1/events` reads.
 */
export interface IngestManifest {
  readonly shard: string;
  /** `<createdAt>#<batch id>`: sorts by time within the shard. */
  readonly key: string;
  readonly createdAt: string;
  readonly eventIds: readonly string[];
  /** Each event's type, in the order of `eventIds` (absent on manifests written before the event log). */
  readonly eventTypes?: readonly string[];
  /** Each event's tenant ('' for none), in the order of `eventIds`; absent when no event of the batch has one. */
  readonly eventTenants?: readonly string[];
  readonly deliveryIds: readonly string[];
  /** Epoch seconds: DynamoDB TTL takes the manifest when its events go (eventTtlFor its createdAt). */
  readonly expiresAt?: number;
}

/**
 * How far the sweeper has checked one shard: instead of a delete per manifest, one item per shard
 * that moves forward (written only by a sweep that checked something).
 */
export interface ManifestWatermark {
  readonly shard: string;
  /** Every manifest of the shard keyed before this has been checked. */
  readonly checkedBefore: string;
  /**
   * Manifests keyed at or after `checkedBefore` that were checked too: the watermark never passes
   * a key younger than MANIFEST_SETTLE_SECONDS, so with a grace shorter than that (tests) the ones
   * in between are remembered here rather than checked again. Empty with the default grace.
   */
  readonly checked: readonly string[];
}

/** One event of the log as its manifest has it (the events table is the truth: an event whose publish stopped before storing it is listed here too). */
export interface EventLogEntry {
  readonly eventId: string;
  readonly eventType?: string;
  readonly tenantId?: string;
  readonly createdAt: string;
}

export interface EventLogRequest extends PageRequest {
  /** Only events of exactly this type. */
  readonly type?: string;
  /** Only events published for this tenant. */
  readonly tenantId?: string;
  /** Only events created at or after this instant (ISO 8601). */
  readonly since?: string;
}

export interface IngestManifestStore {
  put(manifest: IngestManifest): Promise<void>;
  /** Every shard's watermark; a shard never checked has none. */
  watermarks(): Promise<readonly ManifestWatermark[]>;
  /** One shard's manifests keyed after `afterKey` and before `beforeIso`, oldest first, at most `limit`. */
  listAfter(shard: string, afterKey: string, beforeIso: string, limit: number): Promise<readonly IngestManifest[]>;
  /** Moves a shard's watermark from `previous` (undefined: it had none) to `next`; false when another sweep moved it meanwhile. */
  setWatermark(next: ManifestWatermark, previous: ManifestWatermark | undefined): Promise<boolean>;
  /**
   * The events of every manifest, newest first (within a batch, its last event first), across
   * the shards; the cursor is refused when this store did not issue it. A page may hold fewer
   * than `limit` entries when a filter skipped many: follow `nextCursor` until it is absent.
   */
  listEvents(request: EventLogRequest): Promise<Page<EventLogEntry>>;
}

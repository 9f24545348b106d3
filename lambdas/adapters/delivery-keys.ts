import { deliveryIdParts, listKeyOf } from '#domain/ids.ts';
import {
  ACTIVE_DUE_BUCKET_SECONDS,
  ACTIVE_SHARDS,
  DEAD_LETTER_SHARDS,
  SUBSCRIPTION_DEAD_LETTER_SHARDS,
  SUBSCRIPTION_SHARDS,
} from '#config/topology.ts';

/**
 * The deliveries table's key and the partition keys of its indexes. Each spreads its load by a
 * hash of the delivery id, so one busy subscription, or a burst of dead letters, writes to several
 * partitions instead of one (DynamoDB gives a partition 1,000 WCU a second; docs/aws.md, "Scale,
 * on paper"). Readers query every shard of a key and merge (sharded-query.ts).
 */

/** FNV-1a, 32 bits: cheap, and it spreads ids that share long prefixes (every id here starts `dlv_`). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Which of `shards` an id falls in (a delivery, for every index it is in; a subscription, for its routing intents): the same every time. */
export function shardOf(deliveryId: string, shards: number): number {
  return hash(deliveryId) % shards;
}

/** The `active` index's partition (the sweeper's due list): `s0` … `s7`. */
export function activeShardKey(deliveryId: string): string {
  return `s${shardOf(deliveryId, ACTIVE_SHARDS)}`;
}

export function activeShardKeys(): readonly string[] {
  return Array.from({ length: ACTIVE_SHARDS }, (_, k) => `s${k}`);
}

/** The `active` index's sort value for a live delivery due at `dueAt`: the start of its ACTIVE_DUE_BUCKET_SECONDS, as ISO 8601. */
export function activeDueKey(dueAt: string): string {
  const bucketMs = ACTIVE_DUE_BUCKET_SECONDS * 1000;
  return new Date(Math.floor(Date.parse(dueAt) / bucketMs) * bucketMs).toISOString();
}

const keys = (prefix: string, shards: number): readonly string[] =>
  Array.from({ length: shards }, (_, k) => `${prefix}#${k}`);

/** A subscription's partition for this delivery in its listing: `sub_…#0` … `#7`. */
export function subscriptionShardKey(subscriptionId: string, deliveryId: string): string {
  return `${subscriptionId}#${shardOf(deliveryId, SUBSCRIPTION_SHARDS)}`;
}

/** The deliveries table's key of a delivery: its subscription's partition, and `<createdAt>#<id>` there, in creation order. */
export interface DeliveryKey {
  readonly subscriptionShard: string;
  readonly listKey: string;
}

/**
 * A delivery's key, from its id alone (the id carries its subscription and creation time); undefined for a string that is
 * no delivery id of this layout, which no row can have.
 */
export function deliveryKey(id: string): DeliveryKey | undefined {
  const parts = deliveryIdParts(id);
  return (
    parts && {
      subscriptionShard: subscriptionShardKey(parts.subscriptionId, id),
      listKey: listKeyOf({ createdAt: parts.createdAt, id }),
    }
  );
}

/** Every partition a subscription's deliveries can be in, in the order a merged listing breaks ties. */
export function subscriptionShardKeys(subscriptionId: string): readonly string[] {
  return keys(subscriptionId, SUBSCRIPTION_SHARDS);
}

/** A subscription's partition for this dead letter: `sub_…#0` … `#15` (whole rows, so twice the shards of the listing). */
export function subscriptionDeadLetterShardKey(subscriptionId: string, deliveryId: string): string {
  return `${subscriptionId}#${shardOf(deliveryId, SUBSCRIPTION_DEAD_LETTER_SHARDS)}`;
}

export function subscriptionDeadLetterShardKeys(subscriptionId: string): readonly string[] {
  return keys(subscriptionId, SUBSCRIPTION_DEAD_LETTER_SHARDS);
}

/** The overall dead-letter listing's partition for this delivery: `dl#0` … `dl#31`. */
export function deadLetterShardKey(deliveryId: string): string {
  return `dl#${shardOf(deliveryId, DEAD_LETTER_SHARDS)}`;
}

export function deadLetterShardKeys(): readonly string[] {
  return keys('dl', DEAD_LETTER_SHARDS);
}

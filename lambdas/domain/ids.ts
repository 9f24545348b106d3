import { createHash } from 'node:crypto';

export type IdPrefix = 'evt' | 'dlv' | 'sub' | 'rpl' | 'key' | 'psn';

/** A prefixed id from caller-supplied random bytes (so the domain stays deterministic in tests). */
export function formatId(prefix: IdPrefix, randomBytes: Uint8Array): string {
  return `${prefix}_${Buffer.from(randomBytes).toString('base64url')}`;
}

/**
 * The id of an event published without one through the ingest queue, from its SQS message id,
 * which stays the same on every receive: a batch retried after a failure publishes each event
 * once, not again.
 */
export function eventIdForMessage(messageId: string): string {
  return formatId('evt', createHash('sha256').update(messageId).digest().subarray(0, 16));
}

/**
 * The delivery id is derived from (event, subscription), so an ingest retried after a crash
 * writes the same deliveries again instead of new ones.
 */
export function deliveryIdFor(eventId: string, subscriptionId: string): string {
  const digest = createHash('sha256').update(`${eventId}\u0000${subscriptionId}`).digest('base64url');
  return `dlv_${digest.slice(0, 22)}`;
}

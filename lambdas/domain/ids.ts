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

/** Digits of a delivery id's creation time: milliseconds in base 36, zero-padded, so ids sort by time until the year 5188. */
const TIME_DIGITS = 9;
/** Characters of a delivery id's (event, subscription) digest: 78 bits, unique among one subscription's deliveries of one millisecond. */
const DIGEST_CHARS = 13;
const SUBSCRIPTION_PREFIX = 'sub_';
const DELIVERY_ID = new RegExp(`^dlv_([0-9a-z]{${TIME_DIGITS}})([A-Za-z0-9_-]{${DIGEST_CHARS}})([A-Za-z0-9_-]+)$`);

/**
 * The delivery id is derived from (event, subscription) and the event's creation time, so an
 * ingest retried after a crash writes the same deliveries again instead of new ones. It carries
 * its subscription and creation time (`dlv_<time><digest><subscription>`) because the deliveries
 * table is keyed on them: one subscription's deliveries are a query of the table itself, in
 * creation order, with no per-subscription index to write (adapters/delivery-keys.ts).
 */
export function deliveryIdFor(eventId: string, subscriptionId: string, createdAt: string): string {
  if (!subscriptionId.startsWith(SUBSCRIPTION_PREFIX))
    throw new Error(
      `a delivery's subscription id starts with ${SUBSCRIPTION_PREFIX}: ${JSON.stringify(subscriptionId)}`,
    );
  const ms = Date.parse(createdAt);
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new Error(`a delivery's creation time is an ISO 8601 instant: ${JSON.stringify(createdAt)}`);
  const digest = createHash('sha256').update(`${eventId}\u0000${subscriptionId}`).digest('base64url');
  return `dlv_${ms.toString(36).padStart(TIME_DIGITS, '0')}${digest.slice(0, DIGEST_CHARS)}${subscriptionId.slice(SUBSCRIPTION_PREFIX.length)}`;
}

/**
 * Whether `id` is a delivery to `subscriptionId`: a cheap suffix test first (the id ends with
 * the subscription's), since a listing runs it over every delivery published within the grace.
 */
export function isDeliveryOf(id: string, subscriptionId: string): boolean {
  return (
    id.endsWith(subscriptionId.slice(SUBSCRIPTION_PREFIX.length)) &&
    deliveryIdParts(id)?.subscriptionId === subscriptionId
  );
}

/**
 * Where a delivery sits in its subscription's listing, which is by creation, then id:
 * `<createdAt>#<id>`. The deliveries table sorts on it (adapters/delivery-keys.ts), and the reads
 * that merge deliveries not yet written with the rows order by it (app/deliveries/reads.ts).
 */
export function listKeyOf(d: { readonly createdAt: string; readonly id: string }): string {
  return `${d.createdAt}#${d.id}`;
}

/** The delivery id in a listing key. */
export function idOfListKey(listKey: string): string {
  return listKey.slice(listKey.indexOf('#') + 1);
}

/** The last listing key a creation time can have: a range up to `createdAt` takes in every delivery created then. */
export function lastListKeyAt(createdAt: string): string {
  return `${createdAt}#\uffff`;
}

/** What a delivery id says of its delivery; undefined for a string that is not one (an id of an older layout, or made up). */
export function deliveryIdParts(
  id: string,
): { readonly subscriptionId: string; readonly createdAt: string } | undefined {
  const match = DELIVERY_ID.exec(id);
  if (!match) return undefined;
  const ms = parseInt(match[1]!, 36);
  return { subscriptionId: `${SUBSCRIPTION_PREFIX}${match[3]!}`, createdAt: new Date(ms).toISOString() };
}

import { subscriptionSelects } from '#domain/event-types.ts';
import { receivesEvents } from '#domain/subscription-states.ts';
import { deliveryIdFor, formatId } from '#domain/ids.ts';
import type { EventRecord, Subscription } from '#domain/types.ts';
import { firstDeliveryOf, firstMessage } from '#app/publish/first-delivery.ts';
import type { Deps } from '#app/deps.ts';
import { TemporarilyUnavailableError } from '#app/errors.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';
import { eventTtlFor } from '#domain/retention.ts';
import { iso } from '#domain/time.ts';
import { INGEST_MANIFEST_SHARDS, MANIFEST_SETTLE_SECONDS, METRICS } from '#config/topology.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';


/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type PublishDeps = Pick<Deps, 'events' | 'subscriptions' | 'queue' | 'ingestManifests' | 'clock' | 'metrics' | 'defaultRetryPolicy' | 'retention'>;

export type PublishResult =
  | { readonly kind: 'accepted'; readonly eventId: string; readonly deliveryIds: readonly string[] }
  /** The id was seen before: the original delivery ids, nothing new sent. */
  | { readonly kind: 'duplicate'; readonly eventId: string; readonly deliveryIds: readonly string[] }
  /** The id names an event stored with another type or payload: nothing stored or sent (the API answers 422). */
  | { readonly kind: 'conflict'; readonly eventId: string; readonly deliveryIds: readonly string[] };

/**
 * The webhook body `{id, type, timestamp, data}` as text. The envelope's fields are Hookline's
 * and serialised here; `data` is the producer's payload text spliced in unchanged, because a
 * parse and re-serialise would rewrite numbers (1.0 → 1), escapes and key order.
 */
export function webhookBody(id: string, type: string, timestamp: string, payloadJson: string): string {
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${payloadJson}}`;
}

/** `only`: fan out to this one subscription alone (a test event), still by its state and event types. */
export interface PublishOptions {
  readonly only?: Subscription;
}

export async function publish(deps: PublishDeps, request: PublishRequest, options: PublishOptions = {}): Promise<PublishResult> {
  return (await publishBatch(deps, [request], options))[0]!;
}

/**
 * Stores each event once (idempotent on its id: the conditional put is the check, no read
 * before it) and enqueues one delivery per matching subscription, in as few requests as the
 * queue allows; no delivery row is written before its first attempt. Paused subscriptions get
 * deliveries too: they wait, never skip. The batch's manifest, written first, lets the sweeper check after its grace that every
 * delivery was attempted (app/sweep/finish-publish.ts), whatever stopped in between. A
 * duplicate is answered with the original's ids and sends nothing.
 */
export async function publishBatch(deps: PublishDeps, requests: readonly PublishRequest[], options: PublishOptions = {}): Promise<readonly PublishResult[]> {
  if (requests.length === 0) return [];
  const nowMs = deps.clock.now();
  const createdAt = iso(nowMs);
  const all = options.only ? [options.only] : await deps.subscriptions.all();
  const events = requests.map((request): { event: EventRecord; subscriptions: readonly Subscription[]; payloadJson: string } => {
    const eventId = request.id ?? formatId('evt', deps.clock.randomBytes(16));
    const subscriptions = all.filter((s) => receivesEvents(s) && subscriptionSelects(s, request.type));
    return {
      subscriptions,
      payloadJson: request.payloadJson,
      event: {
        id: eventId,
        type: request.type,
        body: webhookBody(eventId, request.type, createdAt, request.payloadJson),
        subscriptionIds: subscriptions.map((s) => s.id),
        deliveryIds: subscriptions.map((s) => deliveryIdFor(eventId, s.id, createdAt)),
        createdAt,
      },
    };
  });
  // Every batch has one, deliveries or not: the manifests are also the event log (GET /v1/events).
  await deps.ingestManifests.put({
    shard: `m${deps.clock.randomBytes(1)[0]! % INGEST_MANIFEST_SHARDS}`,
    key: `${createdAt}#${Buffer.from(deps.clock.randomBytes(9)).toString('base64url')}`,
    createdAt,
    eventIds: events.map((e) => e.event.id),
    eventTypes: events.map((e) => e.event.type),
    deliveryIds: events.flatMap((e) => e.event.deliveryIds),
    expiresAt: eventTtlFor(nowMs, deps.retention),
  });
  // The sweeper's watermark passes a key once it is MANIFEST_SETTLE_SECONDS old, so a manifest
  // that landed later than half of that (a process stalled mid-publish) might never be checked:
  // stop before storing anything, and let the caller (or the queue) try again.
  if (deps.clock.now() - nowMs > (MANIFEST_SETTLE_SECONDS * 1000) / 2) throw new TemporarilyUnavailableError(`publish stalled ${deps.clock.now() - nowMs} ms after creating its batch; nothing was stored, send it again`);

  const results = await Promise.all(
    events.map(async ({ event, subscriptions, payloadJson }): Promise<{ result: PublishResult; messages: readonly DeliveryMessage[] }> => {
      const put = await deps.events.putIfAbsent(event);
      if (put.kind === 'exists') {
        // The same event again is a duplicate; another type or payload under its id is not: the body it would have had at the stored time tells.
        const same = put.existing.type === event.type && put.existing.body === webhookBody(event.id, event.type, put.existing.createdAt, payloadJson);
        return { result: { kind: same ? 'duplicate' : 'conflict', eventId: event.id, deliveryIds: put.existing.deliveryIds }, messages: [] };
      }
      const messages = firstMessages(deps, event, subscriptions, nowMs);
      return { result: { kind: 'accepted', eventId: event.id, deliveryIds: event.deliveryIds }, messages };
    }),
  );
  await deps.queue.enqueue(results.flatMap((r) => r.messages));
  for (const r of results) if (r.result.kind === 'accepted') deps.metrics.count(METRICS.eventsPublished);
  return results.map((r) => r.result);
}

/**
 * The messages that carry an event's deliveries to the sender, each with everything its first
 * attempt needs. No row is written here: the first attempt writes the delivery's one row, in
 * its outcome's state (send.ts), and until then it is read from the batch's manifest
 * (app/deliveries/unwritten.ts), which the sweeper checks after its grace (finish-publish.ts).
 */
function firstMessages(deps: PublishDeps, event: EventRecord, subscriptions: readonly Subscription[], nowMs: number): readonly DeliveryMessage[] {
  return subscriptions.map((sub) => firstMessage(firstDeliveryOf(event, sub, deps.defaultRetryPolicy, nowMs), event, sub));
}

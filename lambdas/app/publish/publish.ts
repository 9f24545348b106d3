import { matchesEventType } from '#domain/event-types.ts';
import { deliveryIdFor, formatId } from '#domain/ids.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery, EventRecord, Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';
import { iso } from '#domain/time.ts';
import { METRICS } from '#config/topology.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type PublishDeps = Pick<Deps, 'events' | 'subscriptions' | 'deliveries' | 'queue' | 'clock' | 'metrics' | 'defaultRetryPolicy'>;

export type PublishResult =
  | { readonly kind: 'accepted'; readonly eventId: string; readonly deliveryIds: readonly string[] }
  /** The id was seen before: the original delivery ids, nothing new sent. */
  | { readonly kind: 'duplicate'; readonly eventId: string; readonly deliveryIds: readonly string[] };

/** Headers (besides the signature set) sent with every attempt. */
export const DELIVERY_HEADERS = Object.freeze({ 'content-type': 'application/json' });

/**
 * The webhook body `{id, type, timestamp, data}` as text. The envelope's fields are Hookline's
 * and serialised here; `data` is the producer's payload text spliced in unchanged, because a
 * parse and re-serialise would rewrite numbers (1.0 → 1), escapes and key order.
 */
export function webhookBody(id: string, type: string, timestamp: string, payloadJson: string): string {
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${payloadJson}}`;
}

/**
 * Stores the event once (idempotent on its id), then writes one delivery per matching
 * subscription and enqueues it. Paused subscriptions get deliveries too: they wait, never skip.
 * A publish retried after a crash completes the fan-out that the first try started.
 */
export async function publish(deps: PublishDeps, request: PublishRequest): Promise<PublishResult> {
  const nowMs = deps.clock.now();
  const eventId = request.id ?? formatId('evt', deps.clock.randomBytes(16));
  if (request.id) {
    const seen = await deps.events.get(eventId);
    if (seen) return duplicate(deps, seen);
  }
  const subscriptions = (await deps.subscriptions.all()).filter(
    (s) => s.state !== 'disabled' && matchesEventType(s.eventTypes, request.type),
  );
  const createdAt = iso(nowMs);
  const event: EventRecord = {
    id: eventId,
    type: request.type,
    body: webhookBody(eventId, request.type, createdAt, request.payloadJson),
    subscriptionIds: subscriptions.map((s) => s.id),
    deliveryIds: subscriptions.map((s) => deliveryIdFor(eventId, s.id)),
    createdAt,
  };
  const put = await deps.events.putIfAbsent(event);
  if (put.kind === 'exists') return duplicate(deps, put.existing);
  await fanOut(deps, event, subscriptions);
  deps.metrics.count(METRICS.eventsPublished);
  return { kind: 'accepted', eventId, deliveryIds: event.deliveryIds };
}

async function duplicate(deps: PublishDeps, event: EventRecord): Promise<PublishResult> {
  const existing = new Set((await deps.deliveries.getMany(event.deliveryIds)).map((d) => d.id));
  const missing = event.subscriptionIds.filter((subId) => !existing.has(deliveryIdFor(event.id, subId)));
  if (missing.length > 0) {
    const subs = await Promise.all(missing.map((id) => deps.subscriptions.get(id)));
    await fanOut(deps, event, subs.filter((s): s is Subscription => s !== undefined));
  }
  return { kind: 'duplicate', eventId: event.id, deliveryIds: event.deliveryIds };
}

async function fanOut(deps: PublishDeps, event: EventRecord, subscriptions: readonly Subscription[]): Promise<void> {
  const nowMs = deps.clock.now();
  const created = await Promise.all(
    subscriptions.map(async (sub) => {
      const policy = sub.retryPolicy ?? deps.defaultRetryPolicy;
      const delivery: Delivery = {
        id: deliveryIdFor(event.id, sub.id),
        eventId: event.id,
        subscriptionId: sub.id,
        ...(sub.tenantId ? { tenantId: sub.tenantId } : {}),
        url: sub.url,
        state: STATE.pending,
        attempts: 0,
        attemptSeq: 0,
        nextAttemptAt: iso(nowMs),
        giveUpAt: iso(Date.parse(event.createdAt) + policy.deadlineSeconds * 1000),
        headers: DELIVERY_HEADERS,
        createdAt: event.createdAt,
        updatedAt: iso(nowMs),
      };
      return (await deps.deliveries.create(delivery)) ? delivery : undefined;
    }),
  );
  const fresh = created.filter((d): d is Delivery => d !== undefined);
  // A delivery written but not enqueued (crash here) is found by the sweeper once overdue.
  await deps.queue.enqueue(fresh.map((d) => ({ deliveryId: d.id, subscriptionId: d.subscriptionId })));
}

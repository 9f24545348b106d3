import { deliveryIdFor } from '#domain/ids.ts';
import type { RouteTarget } from '#domain/routing.ts';
import { STATE } from '#domain/states.ts';
import { iso } from '#domain/time.ts';
import type { RetryPolicy } from '#domain/retry-policy.ts';
import type { Delivery, EventRecord, FirstSend, Subscription } from '#domain/types.ts';
import type { DeliveryMessage } from '#ports/delivery-queue.ts';

/** Headers (besides the signature set) sent with every attempt. */
export const DELIVERY_HEADERS = Object.freeze({ 'content-type': 'application/json' });

/**
 * The row a delivery starts as, pending before any attempt. Publish writes none: the sender
 * builds it from its message (then writes it once, with the outcome, or with a wait before the
 * first attempt), the sweeper from the
 * stored event, and reads show a delivery not yet written as it (app/deliveries/unwritten.ts).
 * The sender passes the id its message carries rather than hashing it again.
 */
export function firstDelivery(
  event: Pick<EventRecord, 'id' | 'type' | 'createdAt'>,
  sub: Subscription,
  giveUpAtMs: number,
  nowMs: number,
  id = deliveryIdFor(event.id, sub.id, event.createdAt),
): Delivery {
  return {
    id,
    eventId: event.id,
    eventType: event.type,
    subscriptionId: sub.id,
    ...(sub.tenantId ? { tenantId: sub.tenantId } : {}),
    url: sub.url,
    state: STATE.pending,
    attempts: 0,
    attemptSeq: 0,
    nextAttemptAt: iso(nowMs),
    giveUpAt: iso(giveUpAtMs),
    headers: DELIVERY_HEADERS,
    createdAt: event.createdAt,
    updatedAt: iso(nowMs),
  };
}

/**
 * The first row of an event's delivery to `sub`, due at `nowMs`, with the deadline its
 * subscription's policy (else the default) gives from the event's creation: publish's message,
 * the sweeper's rebuild and the read of a delivery not yet written all start from it.
 */
export function firstDeliveryOf(
  event: Pick<EventRecord, 'id' | 'type' | 'createdAt'>,
  sub: Subscription,
  defaultRetryPolicy: RetryPolicy,
  nowMs: number,
): Delivery {
  return firstDelivery(
    event,
    sub,
    giveUpAtOf(event.createdAt, sub.retryPolicy?.deadlineSeconds, defaultRetryPolicy),
    nowMs,
  );
}

/** When a delivery gives up: its subscription's deadline (else the default policy's) from the event's creation. */
export function giveUpAtOf(
  createdAt: string,
  deadlineSeconds: number | undefined,
  defaultRetryPolicy: RetryPolicy,
): number {
  return Date.parse(createdAt) + (deadlineSeconds ?? defaultRetryPolicy.deadlineSeconds) * 1000;
}

/**
 * Whether a row is still exactly as it was first written, before any attempt: never attempted
 * or moved. Only such a row may still be waiting for the message publish sent, out of
 * the sweeper's `active` view; any later write puts it in view.
 */
export function untouchedSincePublish(d: Delivery): boolean {
  return d.state === STATE.pending && d.attemptSeq === 0 && d.updatedAt === d.createdAt;
}

/**
 * What publish keeps on the event of its targets for their first messages (`firstSends`): a
 * target's own deadline and its travelling alone, only for those that differ from the defaults,
 * and nothing at all when every one takes them.
 */
export function firstSendsOf(targets: readonly RouteTarget[]): Pick<EventRecord, 'firstSends'> {
  const sends: Record<string, FirstSend> = {};
  for (const target of targets) {
    const send: FirstSend = {
      ...(target.deadlineSeconds !== undefined ? { deadlineSeconds: target.deadlineSeconds } : {}),
      ...(target.rateLimitPerSecond ? { alone: true as const } : {}),
    };
    if (Object.keys(send).length > 0) sends[target.id] = send;
  }
  return Object.keys(sends).length > 0 ? { firstSends: sends } : {};
}

/**
 * The message that carries a fresh delivery to the sender with everything its first attempt
 * needs, built from the stored event alone (its `firstSends` hold what differs from the
 * defaults). One to a rate-limited subscription travels alone, never in a pack: most of a pack
 * to it would wait for turns and leave the pack one by one, and the ten reaching the rate gate
 * at once take their turns in bursts (bench, a 1,000-event burst at 20/s: drained in 87–108 s
 * packed, 76 s alone; 50 s is the limit's own pace).
 */
export function firstMessage(
  event: Pick<EventRecord, 'id' | 'type' | 'body' | 'createdAt' | 'firstSends'>,
  subscriptionId: string,
  defaultRetryPolicy: RetryPolicy,
): DeliveryMessage {
  const send = event.firstSends?.[subscriptionId];
  return {
    kind: 'fresh',
    ...(send?.alone ? { alone: true } : {}),
    deliveryId: deliveryIdFor(event.id, subscriptionId, event.createdAt),
    subscriptionId,
    eventId: event.id,
    eventType: event.type,
    createdAt: event.createdAt,
    giveUpAt: iso(giveUpAtOf(event.createdAt, send?.deadlineSeconds, defaultRetryPolicy)),
    body: event.body,
  };
}

/** The first messages of an event, one per subscription it went to, in their order. */
export function firstMessages(
  event: Pick<EventRecord, 'id' | 'type' | 'body' | 'createdAt' | 'firstSends' | 'subscriptionIds'>,
  defaultRetryPolicy: RetryPolicy,
): DeliveryMessage[] {
  return event.subscriptionIds.map((id) => firstMessage(event, id, defaultRetryPolicy));
}

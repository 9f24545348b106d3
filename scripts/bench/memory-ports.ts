import type { SenderDeps } from '#app/deps.ts';
import type { Delivery, EventRecord, Subscription } from '#domain/types.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { ClaimResult, Completion, DeliveryStore } from '#ports/delivery-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { SubscriptionStore } from '#ports/subscription-store.ts';

/** A port object with only the methods the sender path calls; any other call names itself and fails. */
function senderPathOnly<T extends object>(port: string, impl: Partial<T>): T {
  return new Proxy(impl as T, {
    get: (target, key) =>
      key in target ? target[key as keyof T] : () => Promise.reject(new Error(`${port}.${String(key)} is not on the sender path`)),
  });
}

/**
 * In-memory stores for the sender path, so the engine's own CPU cost (claim, sign, POST,
 * classify, record) can be measured without an emulator in the way. Benchmark use only.
 */
export function memorySenderStores(subscription: Subscription, events: readonly EventRecord[], deliveries: readonly Delivery[]): Pick<SenderDeps, 'subscriptions' | 'events' | 'deliveries' | 'attempts'> {
  const eventById = new Map(events.map((e) => [e.id, e]));
  const rows = new Map(deliveries.map((d) => [d.id, d]));
  const attempts: unknown[] = [];
  const delivery: Partial<DeliveryStore> = {
    get: async (id) => rows.get(id),
    async claim(id, nowIso): Promise<ClaimResult> {
      const d = rows.get(id);
      if (!d || d.state !== 'pending' || d.nextAttemptAt > nowIso) return d ? { kind: 'not_claimable', current: d } : { kind: 'not_claimable' };
      const claimed: Delivery = { ...d, state: 'in_flight', attempts: d.attempts + 1, attemptSeq: d.attemptSeq + 1, updatedAt: nowIso };
      rows.set(id, claimed);
      return { kind: 'claimed', delivery: claimed };
    },
    async complete(claimed: Delivery, c: Completion) {
      const d = rows.get(claimed.id);
      if (d?.state !== 'in_flight' || d.attemptSeq !== claimed.attemptSeq) return false;
      rows.set(claimed.id, { ...d, ...c });
      return true;
    },
  };
  return {
    subscriptions: senderPathOnly<SubscriptionStore>('subscriptions', { get: async (id) => (id === subscription.id ? subscription : undefined) }),
    events: senderPathOnly<EventStore>('events', { get: async (id) => eventById.get(id) }),
    deliveries: senderPathOnly<DeliveryStore>('deliveries', delivery),
    attempts: senderPathOnly<AttemptStore>('attempts', { put: async (a) => void attempts.push(a) }),
  };
}

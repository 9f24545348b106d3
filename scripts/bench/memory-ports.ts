import type { SendDeps } from '#app/send/send.ts';
import type { EventRecord, Subscription } from '#domain/types.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { SubscriptionStore } from '#ports/subscription-store.ts';
import { InMemoryDeliveryStore } from '#test/memory-delivery-store.ts';

/** A port object with only the methods the sender path calls; any other call names itself and fails. */
function senderPathOnly<T extends object>(port: string, impl: Partial<T>): T {
  return new Proxy(impl as T, {
    get: (target, key) =>
      key in target
        ? target[key as keyof T]
        : () => Promise.reject(new Error(`${port}.${String(key)} is not on the sender path`)),
  });
}

/**
 * In-memory stores for the sender path, so the engine's own CPU cost (sign, POST,
 * classify, record) can be measured without an emulator in the way. Benchmark use only.
 */
export function memorySenderStores(
  subscription: Subscription,
  events: readonly EventRecord[],
): Pick<SendDeps, 'subscriptions' | 'events' | 'deliveries' | 'attempts'> {
  const eventById = new Map(events.map((e) => [e.id, e]));
  const attempts: unknown[] = [];
  return {
    subscriptions: senderPathOnly<SubscriptionStore>('subscriptions', {
      getCached: async (id) => (id === subscription.id ? subscription : undefined),
    }),
    events: senderPathOnly<EventStore>('events', { get: async (id) => eventById.get(id) }),
    // The same in-memory store the service unit tests run on, with the state machine's conditions.
    deliveries: new InMemoryDeliveryStore(),
    attempts: senderPathOnly<AttemptStore>('attempts', { put: async (a) => (attempts.push(a), true) }),
  };
}

import { isDeadLetter, STATE } from '#domain/states.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import { aDelivery, aSubscription, type InMemoryDeliveryStore, type InMemorySubscriptionStore } from './fakes.ts';

/** The dead-letter index over an in-memory store, for bulk replay tests: keyset pages in id order, a dead letter only while it is one. */
export function deadLetterIndex(store: InMemoryDeliveryStore): RecoveryStore {
  return {
    async listDeadLettersChanged(request) {
      const all = [...store.items.values()]
        .filter((d) => isDeadLetter(d.state) && (!request.cursor || d.id > request.cursor))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      const items = all.slice(0, request.limit);
      return items.length < all.length ? { items, nextCursor: items.at(-1)!.id } : { items };
    },
    listCreated: async () => ({ items: [] }),
    deleteArchived: async () => false,
    restore: async () => false,
  };
}

/**
 * `count` failed deliveries (`dlv_000`, …) put in `store`, dealt in turn to `subscriptions`
 * subscriptions (`sub_1`, …), which are put in `subscriptionStore`; their ids, in order.
 */
export function putDeadLetters(
  store: InMemoryDeliveryStore,
  subscriptionStore: InMemorySubscriptionStore,
  count: number,
  subscriptions = 1,
): string[] {
  for (let n = 1; n <= subscriptions; n++) subscriptionStore.items.set(`sub_${n}`, aSubscription({ id: `sub_${n}` }));
  return Array.from({ length: count }, (_, i) => {
    const id = `dlv_${String(i).padStart(3, '0')}`;
    store.put(
      aDelivery({
        id,
        subscriptionId: `sub_${(i % subscriptions) + 1}`,
        state: STATE.failed,
        attempts: 1,
        createdAt: '2024-05-01T10:00:00.000Z',
        updatedAt: '2024-05-01T11:00:00.000Z',
      }),
    );
    return id;
  });
}

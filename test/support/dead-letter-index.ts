import { isDeadLetter } from '#domain/states.ts';
import type { RecoveryStore } from '#ports/recovery-store.ts';
import type { InMemoryDeliveryStore } from './fakes.ts';

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

import type { ItemOf } from '#client/hookline-client.ts';
import { useSession } from './context.ts';
import { type Async, useAsync } from './use-async.ts';

/** A registered event type, as `GET /v1/event-types` answers it. */
export type EventType = ItemOf<'GET /v1/event-types'>;

/** The whole catalog, page after page, in the API's order (by name). */
export function useCatalog(version = 0): Async<readonly EventType[]> {
  const { client } = useSession();
  return useAsync(async () => {
    const items: EventType[] = [];
    for await (const item of client.paginate('GET /v1/event-types', { query: { limit: 100 } })) items.push(item);
    return items;
  }, [version]);
}

/** One empty catalog, so a form's effects that follow the catalog see no change while it loads. */
const NONE: readonly EventType[] = Object.freeze([]);

/**
 * The catalog for a form that offers its types: empty while it loads or when it cannot be read,
 * so the form then works as it does without a catalog (every type typed by hand).
 */
export function useCatalogChoices(): readonly EventType[] {
  return useCatalog().data ?? NONE;
}

import type { EventTypeEntry } from '#domain/event-type-catalog.ts';
import type { Page, PageRequest } from './page.ts';

/** What a registration writes: the entry without its times, which the store keeps (createdAt survives a replace). */
export type EventTypeInput = Omit<EventTypeEntry, 'createdAt' | 'updatedAt'>;

/** The event-type catalog, keyed by type name. */
export interface EventTypeStore {
  /** The entry as last written (a strongly consistent read), or undefined. */
  get(name: string): Promise<EventTypeEntry | undefined>;
  /** A page of the catalog in name order; the cursor is opaque (InvalidCursorError when it is not one this store issued). */
  list(request: PageRequest): Promise<Page<EventTypeEntry>>;
  /** How many types are registered. */
  count(): Promise<number>;
  /**
   * The whole catalog by name, as publish checks events against it: read whole, and kept for the
   * store's cache period (a per-container cache on AWS; writes through this instance drop it).
   */
  catalog(): Promise<ReadonlyMap<string, EventTypeEntry>>;
  /**
   * Registers the type, or replaces it whole (an absent schema or example is removed), in one
   * write at `nowIso`: `created` with a new entry, `replaced` keeping the first `createdAt`.
   */
  put(
    input: EventTypeInput,
    nowIso: string,
  ): Promise<{ readonly kind: 'created' | 'replaced'; readonly entry: EventTypeEntry }>;
  /** Removes the type; the entry as it was, or undefined when there was none. */
  delete(name: string): Promise<EventTypeEntry | undefined>;
}

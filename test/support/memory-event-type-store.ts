/**
 * The event-type catalog in memory, keeping what the DynamoDB adapter keeps (one entry per name,
 * createdAt kept across a replace, name order), for the service tests. `catalogReads` counts how
 * often publish read the whole catalog, so a test can show that the `allow` check never does.
 */
import type { EventTypeEntry } from '#domain/event-type-catalog.ts';
import type { EventTypeInput, EventTypeStore } from '#ports/event-type-store.ts';
import { decodeCursor, encodeCursor, InvalidCursorError, type Page, type PageRequest } from '#ports/page.ts';

export class InMemoryEventTypeStore implements EventTypeStore {
  readonly entries = new Map<string, EventTypeEntry>();
  catalogReads = 0;

  async get(name: string): Promise<EventTypeEntry | undefined> {
    return this.entries.get(name);
  }

  async list(request: PageRequest): Promise<Page<EventTypeEntry>> {
    const position = decodeCursor<{ after?: unknown }>(request.cursor);
    if (position !== undefined && typeof position.after !== 'string') throw new InvalidCursorError();
    const after = position?.after as string | undefined;
    const rest = this.sorted().filter((e) => after === undefined || e.name > after);
    const items = rest.slice(0, request.limit);
    return rest.length > items.length ? { items, nextCursor: encodeCursor({ after: items.at(-1)!.name }) } : { items };
  }

  async count(): Promise<number> {
    return this.entries.size;
  }

  async catalog(): Promise<ReadonlyMap<string, EventTypeEntry>> {
    this.catalogReads++;
    return new Map(this.sorted().map((e) => [e.name, e]));
  }

  async put(input: EventTypeInput, nowIso: string) {
    const old = this.entries.get(input.name);
    const entry: EventTypeEntry = { ...input, createdAt: old?.createdAt ?? nowIso, updatedAt: nowIso };
    this.entries.set(input.name, entry);
    return { kind: old ? ('replaced' as const) : ('created' as const), entry };
  }

  async delete(name: string): Promise<EventTypeEntry | undefined> {
    const old = this.entries.get(name);
    this.entries.delete(name);
    return old;
  }

  private sorted(): EventTypeEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

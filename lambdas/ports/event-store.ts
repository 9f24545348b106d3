import type { EventRecord } from '#domain/types.ts';

export type PutEventResult =
  | { readonly kind: 'created' }
  | { readonly kind: 'exists'; readonly existing: EventRecord };

export interface EventStore {
  get(id: string): Promise<EventRecord | undefined>;
  /** Writes the event unless one with the same id exists (the publish idempotency check). */
  putIfAbsent(event: EventRecord): Promise<PutEventResult>;
}

import type { EventRecord } from '#domain/types.ts';

/** An event without its body: what listings show (the event log, a subscription's events). */
export type EventSummary = Omit<EventRecord, 'body'>;

export type PutEventResult = { readonly kind: 'created' } | { readonly kind: 'exists'; readonly existing: EventRecord };

/**
 * The events table: each event once, its body the exact text every attempt sends. A row goes
 * only by TTL (eventTtlFor, moved out by extendRetention for a dead letter, a replay or a
 * restore): TTL deletes are free, where the archiver deleting events would pay a write unit
 * for each.
 */
export interface EventStore {
  get(id: string): Promise<EventRecord | undefined>;
  /** Each known id's event without its body (not read, not inflated), each once, in the order first asked; unknown ids are left out. */
  getSummaries(ids: readonly string[]): Promise<readonly EventSummary[]>;
  /** Writes the event, with its TTL (epoch seconds, eventTtlFor), unless one with the same id exists (the publish idempotency check). */
  putIfAbsent(event: EventRecord, expiresAt: number): Promise<PutEventResult>;
  /**
   * Keeps the event at least until `untilEpochSeconds` (a dead letter's, see
   * deadLetterEventTtl): never shortens it, and an event that is gone stays gone.
   */
  extendRetention(eventId: string, untilEpochSeconds: number): Promise<void>;
  /**
   * The event a stream record's new image holds (DynamoDB's attribute-value JSON, as Lambda
   * hands it over: binary values in base64): the fan-out reads the event from its stream, not
   * from the table.
   */
  fromStreamImage(image: Readonly<Record<string, unknown>>): EventRecord;
}

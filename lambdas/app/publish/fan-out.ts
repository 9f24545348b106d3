import { firstMessages } from '#app/publish/first-delivery.ts';
import type { Deps } from '#app/deps.ts';
import type { EventRecord } from '#domain/types.ts';

/** What the fan-out uses. */
export type FanOutDeps = Pick<Deps, 'queue' | 'defaultRetryPolicy'>;

/**
 * The hand-off from stored events to their deliveries: the first message of each delivery,
 * built from the event as stored (no read), all of a batch in one enqueue, so the deliveries
 * of many publishes share SQS requests and packs. The events table's stream brings each new
 * event here at least once (the ingest function's stream source; locally the runtime's change
 * feed): a batch handed over again sends its messages again, and a fresh message whose
 * delivery was attempted already is a second POST at worst (at-least-once), as after a worker
 * that dies. Returns how many messages it enqueued.
 */
export async function fanOut(deps: FanOutDeps, events: readonly EventRecord[]): Promise<number> {
  const messages = events.flatMap((event) => firstMessages(event, deps.defaultRetryPolicy));
  if (messages.length > 0) await deps.queue.enqueue(messages);
  return messages.length;
}

import type { RecordedAttempt } from '#domain/types.ts';

/**
 * One delivery to attempt. Besides the ids, a message from publish carries what the happy path
 * needs so the sender reads nothing but the (cached) subscription: the event's type, creation
 * time and body, and the retry deadline. `fresh` says no delivery row exists yet; every other
 * message (a retry's, a replay's, a sweeper's) is for a row the sender reads and claims.
 */
export interface DeliveryMessage {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  readonly eventId?: string;
  readonly eventType?: string;
  readonly createdAt?: string;
  readonly giveUpAt?: string;
  /** The exact webhook body; the queue adapter compresses it on the way (and leaves it out when too large: the sender then reads the event). */
  readonly body?: string;
  readonly fresh?: boolean;
  /**
   * A planned retry's message (app/send/send.ts): the row as the attempt before recorded it.
   * Its attempt may go unclaimed while the row still reads so (docs/design.md, "Retries
   * without a claim"); any other message is claimed.
   */
  readonly recorded?: RecordedAttempt;
  /** Travels in a message of its own, never in a pack. */
  readonly alone?: boolean;
  /**
   * Not to be attempted before this instant (ISO 8601): a wait longer than a message's delay
   * travels as a chain of delayed messages, each sent on until this has come.
   */
  readonly notBefore?: string;
  /** Seconds before the message becomes visible (SQS allows at most 900). */
  readonly delaySeconds?: number;
}

/** A delivery message as received: its delay was the queue's business. */
export type ReceivedDeliveryMessage = Omit<DeliveryMessage, 'delaySeconds' | 'alone'>;

export interface DeliveryQueue {
  /** Deliveries due at the same time may share one queue message (a pack): the adapter's choice. */
  enqueue(messages: readonly DeliveryMessage[]): Promise<void>;
  /**
   * The deliveries a received message body carries (its JSON already parsed), as they were
   * enqueued: one, or a pack's. The wire form is the adapter's. Throws when the body lacks the
   * ids or a body it carries fails its check.
   */
  decode(wire: Readonly<Record<string, unknown>>): readonly ReceivedDeliveryMessage[];
  /** Visibility-timeout backoff (short waits only: app/send/settle.ts `waitFor`): the received message comes back after `delaySeconds`. */
  setVisibility(receiptHandle: string, delaySeconds: number): Promise<void>;
}

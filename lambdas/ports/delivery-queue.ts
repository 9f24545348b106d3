import type { InlineAttempt } from '#domain/types.ts';

/** What every delivery message says, whatever its kind. */
interface MessageFields {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  /**
   * Not to be attempted before this instant (ISO 8601): a wait longer than a message's delay
   * travels as a chain of delayed messages, each sent on unread until this has come.
   */
  readonly notBefore?: string;
  /** Seconds before the message becomes visible (SQS allows at most 900); sending only. */
  readonly delaySeconds?: number;
  /** Travels in a message of its own, never in a pack; sending only. */
  readonly alone?: boolean;
  /** Sent on after a failure: the delivery may have been written since the message was made, so its row is read first. */
  readonly reread?: true;
}

/** What an attempt needs of its event, carried so the sender reads nothing but the (cached) subscription. */
interface EventFields {
  readonly eventId: string;
  readonly eventType: string;
  readonly createdAt: string;
  readonly giveUpAt: string;
  /** The exact webhook body; the queue adapter compresses it, and leaves it out when too large (the sender then reads the event). */
  readonly body?: string;
}

/** A delivery's first attempt, from publish: no row yet, and everything the attempt needs. */
export interface FreshMessage extends MessageFields, EventFields {
  readonly kind: 'fresh';
}

/**
 * A planned retry, from the attempt before it: the row as that attempt wrote it (the next
 * outcome's condition), the run's attempt count for the backoff, that attempt's record, which
 * the row holds inline until the next outcome replaces it, and the earlier ones the row holds
 * (where the replaced one goes is decided from them: domain/attempt-log.ts `placeReplaced`).
 */
export interface RetryMessage extends MessageFields, EventFields {
  readonly kind: 'retry';
  readonly attemptSeq: number;
  readonly nextAttemptAt: string;
  readonly attempts: number;
  readonly previousAttempt?: InlineAttempt;
  readonly earlierAttempts?: readonly InlineAttempt[];
}

/**
 * Read the row and attempt it as it stands: a replay's, a drain's, the sweeper's, a wait that
 * wrote the row (a paused subscription, a long rate-limit wait), and every message of an
 * earlier version of Hookline (app/send/send.ts reads each the same way).
 */
export interface DueMessage extends MessageFields {
  readonly kind: 'due';
  /** The attempt number of the row it was sent for: a row at another has moved on, and another message carries it. Absent on an earlier version's. */
  readonly attemptSeq?: number;
}

export type DeliveryMessage = FreshMessage | RetryMessage | DueMessage;

/** A delivery message as received: its delay and packing were the queue's business. */
export type ReceivedDeliveryMessage = DeliveryMessage extends infer M
  ? M extends DeliveryMessage
    ? Omit<M, 'delaySeconds' | 'alone'>
    : never
  : never;

export interface DeliveryQueue {
  /** Deliveries due at the same time may share one queue message (a pack): the adapter's choice. */
  enqueue(messages: readonly DeliveryMessage[]): Promise<void>;
  /**
   * The deliveries a received message body carries (its JSON already parsed), as they were
   * enqueued: one, or a pack's. The wire form is the adapter's, and so is reading the forms of
   * earlier versions. Throws when the body lacks the ids or a body it carries fails its check.
   */
  decode(wire: Readonly<Record<string, unknown>>): readonly ReceivedDeliveryMessage[];
  /** Visibility-timeout backoff (short waits only: app/redelivery/settle.ts `waitFor`): the received message comes back after `delaySeconds`. */
  setVisibility(receiptHandle: string, delaySeconds: number): Promise<void>;
  /** Whether a record whose event source is `eventSourceArn` came from this queue (which lane a sender batch is from). */
  receivedFrom(eventSourceArn: string | undefined): boolean;
}

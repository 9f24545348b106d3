import type { AttemptResult, Outcome } from '#domain/classify.ts';
import type { CompletionAction, DeliveryState } from '#domain/states.ts';
import type { Delivery, Expectation, Subscription } from '#domain/types.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';

/**
 * One attempt as data: the sender handler logs it as one structured record (INFO), which is
 * what Logs Insights slices by subscription on AWS and what the local terminal prints as a line.
 * Only the URL's host is kept: a receiver's path or query may carry a token.
 */
export interface AttemptReport {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  readonly eventType: string;
  readonly host: string;
  /** Attempt number within the current run (1 after a replay too). */
  readonly attempt: number;
  readonly status?: number;
  readonly error?: string;
  readonly durationMs: number;
  /** The action recorded, or `lost` when another copy of the delivery wrote its row first (this POST was a duplicate). */
  readonly outcome: CompletionAction | 'lost';
  /** The delivery's state after the attempt; absent when lost. */
  readonly state?: DeliveryState;
  /** For a retry: the backoff delay. */
  readonly retryInSeconds?: number;
}

/** What became of a delivery message; `attempt` is present whenever a POST was made. */
export type SendOutcome =
  | { readonly kind: 'done'; readonly note: string; readonly outcome?: Outcome; readonly attempt?: AttemptReport }
  | {
      readonly kind: 'retry_later';
      readonly delaySeconds: number;
      readonly note: string;
      readonly attempt?: AttemptReport;
      /** The message the delivery comes back as, in place of the one received (a retry's, a wait that wrote the row). */
      readonly next?: ReceivedDeliveryMessage;
      /** The instant (epoch ms) a rate-limit wait is for: its message carries it (redelivery/settle.ts). */
      readonly until?: number;
    };

/** The row a message's attempt starts from (carried, or read), and the expectation its one write holds on. */
export interface Expected {
  readonly row: Delivery;
  readonly expect: Expectation;
}

/** An attempt about to be made: the row as expected (for a first attempt, the row it will be) and what the POST needs. */
export interface Attempt extends Expected {
  readonly subscription: Subscription;
  readonly eventType: string;
  readonly body: string;
  readonly secrets: readonly string[];
}

/**
 * What a message's one write records (record.ts): the attempt made, a dead letter with no POST
 * (its subscription or body gone), a wait written into the row (a paused subscription, a long
 * rate-limit wait), or an expiry (held back past the deadline).
 */
export type Step =
  | {
      readonly kind: 'attempted';
      readonly attempt: Attempt;
      readonly result: AttemptResult;
      readonly startedAtMs: number;
    }
  | { readonly kind: 'dead_letter'; readonly at: Expected; readonly reason: string }
  | {
      readonly kind: 'wait';
      readonly at: Expected;
      readonly untilMs: number;
      readonly note: string;
      readonly paused?: true;
    }
  | { readonly kind: 'expire'; readonly at: Expected; readonly reason: string; readonly note: string };

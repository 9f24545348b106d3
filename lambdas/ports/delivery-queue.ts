export interface DeliveryMessage {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  /** Seconds before the message becomes visible (SQS allows at most 900). */
  readonly delaySeconds?: number;
}

export interface DeliveryQueue {
  enqueue(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Visibility-timeout backoff: the received message comes back after `delaySeconds`. */
  retryLater(receiptHandle: string, delaySeconds: number): Promise<void>;
}

import type { PublishPath } from './cost-model.ts';

/** Names a scenario, so targets can point at it however its name is worded. */
export type ScenarioId =
  | 'fo1-http'
  | 'fo1-http-batch'
  | 'fo1-sqs'
  | 'fo10-http'
  | 'fo10-sqs'
  | 'retry-http'
  | 'retry-sqs'
  | 'dlq-sqs'
  | 'down-sqs';

export interface CostScenario {
  readonly id: ScenarioId;
  readonly name: string;
  readonly fanOut: number;
  readonly events: number;
  readonly publish: PublishPath;
  /** Events per POST /v1/events/batch request (publish 'http-batch'). */
  readonly eventsPerRequest?: number;
  /** The receiver answers 500 this many times per delivery before its final answer. */
  readonly failuresFirst: number;
  /** The receiver's final answer: 200 (delivered) or a permanent 4xx (dead-lettered). */
  readonly finalStatus: number;
  /** The subscription's retry policy gives up (expired) after this many attempts. */
  readonly maxAttempts?: number;
}

/** Whether the scenario's deliveries end delivered (else dead-lettered: failed, or expired when the attempts run out). */
export const endsDelivered = (s: CostScenario) =>
  s.finalStatus >= 200 && s.finalStatus < 300 && (s.maxAttempts === undefined || s.failuresFirst < s.maxAttempts);

import type { DeliveryMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { AttemptReport, SendOutcome } from '#app/send/send.ts';

/** A transient failure before or after the attempt (DynamoDB throttled, say) is retried this soon. */
export const STAGE_RETRY_SECONDS = 10;

/**
 * What becomes of one delivery's message: `done` → finished with; `retry` → back when the delay
 * has passed; `error` → a real failure, back soon (`deferred`: its delay was set, else the
 * queue's visibility timeout brings it back). The handler reports a message that is not done as
 * a batch item failure, so SQS keeps it, and logs a retry and an error differently. `attempt`
 * carries the attempt that was made, whatever became of the message, for the handler to log.
 */
export type MessageFate =
  | { readonly kind: 'done'; readonly note: string; readonly attempt?: AttemptReport }
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly note: string; readonly attempt?: AttemptReport }
  | { readonly kind: 'error'; readonly error: unknown; readonly deferred: boolean; readonly attempt?: AttemptReport };

/**
 * How a delivery comes back after `delaySeconds`: its own message's visibility set to the
 * delay, or (for a delivery in a pack) a message of its own sent with that delay.
 */
export type Later = (delaySeconds: number) => Promise<void>;

/**
 * The one place where a delivery message's fate is decided. A planned retry comes back when
 * due; a stage error comes back after STAGE_RETRY_SECONDS (nothing was recorded as sent).
 * Never throws: a failure is an answer.
 */
export async function settle(later: Later, run: () => Promise<SendOutcome>): Promise<MessageFate> {
  let outcome: SendOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // Best effort: if SQS is unreachable too, the queue's own visibility timeout brings it back.
    const deferred = await later(STAGE_RETRY_SECONDS).then(() => true, () => false);
    return { kind: 'error', error, deferred };
  }
  const attempt = outcome.attempt ? { attempt: outcome.attempt } : {};
  if (outcome.kind === 'done') return { kind: 'done', note: outcome.note, ...attempt };
  try {
    await later(outcome.delaySeconds);
  } catch (error) {
    // The delay was not set: the message comes back after the queue's visibility timeout instead.
    return { kind: 'error', error, deferred: false, ...attempt };
  }
  return { kind: 'retry', delaySeconds: outcome.delaySeconds, note: outcome.note, ...attempt };
}

/**
 * A delivery leaving its pack, as a message of its own: the same fields less `fresh`, so it is
 * claimed when it comes back (the first attempt may have been made and recorded already).
 */
export function onItsOwn(message: ReceivedDeliveryMessage, delaySeconds: number): DeliveryMessage {
  const { fresh: _fresh, ...rest } = message;
  return { ...rest, delaySeconds };
}

/**
 * Whether a pack's message is finished with: every delivery done, or handed over to a message
 * of its own (a retry's, or a stage error's whose delay was set). One that could not be handed
 * over keeps the whole pack; its other deliveries, back with it, find their rows settled.
 */
export function packFinished(fates: readonly MessageFate[]): boolean {
  return fates.every((f) => f.kind !== 'error' || f.deferred);
}

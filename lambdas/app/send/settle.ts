import type { Deps } from '#app/deps.ts';
import type { AttemptReport, SendOutcome } from '#app/send/send.ts';

/** A transient failure before or after the attempt (DynamoDB throttled, say) is retried this soon. */
export const STAGE_RETRY_SECONDS = 10;

/**
 * What becomes of one SQS message: `done` → deleted (a success in the batch response);
 * `retry` → back when the delay has passed; `error` → a real failure, back soon. Both of the
 * latter are reported as batch item failures by the handler, which logs them differently.
 * `attempt` carries the attempt that was made, whatever became of the message, for the handler
 * to log.
 */
export type MessageFate =
  | { readonly kind: 'done'; readonly note: string; readonly attempt?: AttemptReport }
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly note: string; readonly attempt?: AttemptReport }
  | { readonly kind: 'error'; readonly error: unknown; readonly attempt?: AttemptReport };

/**
 * The one place where a message's fate is decided. A planned retry sets the message's
 * visibility to the backoff delay, so SQS brings it back when due; a stage error sets it to
 * STAGE_RETRY_SECONDS (nothing was recorded as sent). Never throws: a failure is an answer.
 */
export async function settle(
  deps: Pick<Deps, 'queue'>,
  receiptHandle: string,
  run: () => Promise<SendOutcome>,
): Promise<MessageFate> {
  let outcome: SendOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // Best effort: if SQS is unreachable too, the queue's own visibility timeout brings it back.
    await deps.queue.retryLater(receiptHandle, STAGE_RETRY_SECONDS).catch(() => undefined);
    return { kind: 'error', error };
  }
  const attempt = outcome.attempt ? { attempt: outcome.attempt } : {};
  if (outcome.kind === 'done') return { kind: 'done', note: outcome.note, ...attempt };
  try {
    await deps.queue.retryLater(receiptHandle, outcome.delaySeconds);
  } catch (error) {
    // The delay was not set: the message comes back after the queue's visibility timeout instead.
    return { kind: 'error', error, ...attempt };
  }
  return { kind: 'retry', delaySeconds: outcome.delaySeconds, note: outcome.note, ...attempt };
}

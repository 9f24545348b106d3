import { signatureHeaders } from '#domain/signing.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { Deps } from '#app/deps.ts';
import { DeliveryStageError } from '#app/errors.ts';
import { prepareAttempt, type AttemptDeps, type Receipt } from '#app/send/attempt.ts';
import type { Attempt, SendOutcome, Step } from '#app/send/outcome.ts';
import { rateGate } from '#app/send/rate-gate.ts';
import { record, type RecordDeps } from '#app/send/record.ts';
import { postWatchingForSlowness } from '#app/redelivery/slow-lane.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type SendDeps = AttemptDeps & RecordDeps & Pick<Deps, 'http' | 'attemptTimeoutMs' | 'sendRate' | 'slowAfterMs'>;

/**
 * One delivery message, at most one attempt, one write, in this order: what the attempt needs,
 * read (attempt.ts: the row the message expects, carried or read when the message may be
 * stale), the rate gate (rate-gate.ts), the signed POST, and the one write of whatever that came
 * to, conditional on the expectation (record.ts). Nothing is claimed: two copies of one delivery
 * can both POST, and the second write changes nothing (an at-least-once duplicate the receiver
 * dedupes on `webhook-id`). What becomes of the SQS message is app/redelivery's. Each
 * stage's failure is tagged with its stage: before or after the POST, nothing was recorded, and
 * the message comes back.
 */
export async function processDelivery(
  deps: SendDeps,
  message: ReceivedDeliveryMessage,
  receipt: Receipt,
): Promise<SendOutcome> {
  const { deliveryId, notBefore } = message;
  const prepared = await stage('before_attempt', deliveryId, () => prepareAttempt(deps, message, receipt));
  const step = prepared.kind === 'attempt' ? await attemptUnlessHeld(deps, prepared.attempt, notBefore) : prepared;
  if (step.kind === 'done' || step.kind === 'retry_later') return step;
  return stage('after_attempt', deliveryId, () => record(deps, step));
}

/** The rate gate (given the turn a message back from a wait carries), then the signed POST: the attempt made, or what holds it back. */
async function attemptUnlessHeld(deps: SendDeps, attempt: Attempt, notBefore?: string): Promise<Step | SendOutcome> {
  const held = await stage('before_attempt', attempt.row.id, () => rateGate(deps, attempt, notBefore));
  if (held) return held;
  const startedAtMs = deps.clock.now();
  const { row, subscription, body, secrets } = attempt;
  const headers = {
    ...row.headers,
    // The subscription's own headers as they are now: an update applies to the next attempt.
    ...subscription.headers,
    ...signatureHeaders(secrets, row.eventId, Math.floor(startedAtMs / 1000), body),
  };
  const result = await stage('attempt', row.id, () =>
    postWatchingForSlowness(deps, subscription, () =>
      deps.http.post({ url: subscription.url, headers, body, timeoutMs: deps.attemptTimeoutMs }),
    ),
  );
  return { kind: 'attempted', attempt, result, startedAtMs };
}

async function stage<T>(name: DeliveryStageError['stage'], deliveryId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw new DeliveryStageError(name, deliveryId, { cause });
  }
}

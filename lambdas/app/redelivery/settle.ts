import { MAX_WAIT_LINK_SECONDS } from '#config/topology.ts';
import { iso } from '#domain/time.ts';
import type { DeliveryMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { AttemptReport, SendOutcome } from '#app/send/outcome.ts';

/** A transient failure before or after the attempt (DynamoDB throttled, say) is retried this soon. */
export const STAGE_RETRY_SECONDS = 10;

/**
 * What becomes of one delivery's message: `done` → finished with; `retry` → back when the delay
 * has passed; `error` → a real failure, back soon. `released` says the received message no
 * longer carries the delivery (another message does, sent with the delay): SQS may delete it.
 * Otherwise the handler reports the message as a batch item failure, so SQS keeps it (its
 * visibility set to the delay, or for an error whose delay could not be set, the queue's
 * visibility timeout). `attempt` carries the attempt made, for the handler to log.
 */
export type MessageFate =
  | { readonly kind: 'done'; readonly note: string; readonly attempt?: AttemptReport }
  | {
      readonly kind: 'retry';
      readonly delaySeconds: number;
      readonly note: string;
      readonly released: boolean;
      readonly attempt?: AttemptReport;
    }
  | { readonly kind: 'error'; readonly error: unknown; readonly released: boolean; readonly attempt?: AttemptReport };

/**
 * How a delivery comes back after `delaySeconds`: `kept`, its received message's visibility set
 * to the delay; `moved`, a message of its own sent with that delay: `next` when the outcome
 * names the message to come back as, the received one otherwise, `reread` when the delivery may
 * have been written since (after a stage error: its row is read first when it comes back),
 * carrying `until` when the wait is for that instant (a rate-limit turn, epoch ms).
 */
export type Later = (
  delaySeconds: number,
  how?: { readonly next?: ReceivedDeliveryMessage; readonly reread?: true; readonly until?: number },
) => Promise<'kept' | 'moved'>;

/**
 * The one place where a delivery message's fate is decided. A planned retry or a wait comes
 * back when due; a stage error comes back after STAGE_RETRY_SECONDS. Never throws: a failure is
 * an answer.
 */
export async function settle(later: Later, run: () => Promise<SendOutcome>): Promise<MessageFate> {
  let outcome: SendOutcome;
  try {
    outcome = await run();
  } catch (error) {
    // Best effort: if SQS is unreachable too, the queue's own visibility timeout brings it back.
    const released = await later(STAGE_RETRY_SECONDS, { reread: true }).then(
      (how) => how === 'moved',
      () => false,
    );
    return { kind: 'error', error, released };
  }
  const attempt = outcome.attempt ? { attempt: outcome.attempt } : {};
  if (outcome.kind === 'done') return { kind: 'done', note: outcome.note, ...attempt };
  let how: 'kept' | 'moved';
  try {
    how = await later(outcome.delaySeconds, {
      ...(outcome.next ? { next: outcome.next } : {}),
      ...(outcome.until !== undefined ? { until: outcome.until } : {}),
    });
  } catch (error) {
    // The delay was not set: the message comes back after the queue's visibility timeout instead.
    return { kind: 'error', error, released: false, ...attempt };
  }
  return {
    kind: 'retry',
    delaySeconds: outcome.delaySeconds,
    note: outcome.note,
    released: how === 'moved',
    ...attempt,
  };
}

/**
 * How a received delivery waits `delaySeconds`. A message the outcome names (a planned retry's,
 * a wait's due message) is sent with the delay through `queue.sendNext`, which gathers the
 * sends of one batch into one request. Any other wait is in flight (its message's visibility)
 * when it is alone in its message, the wait is at most `inFlightWaitSeconds` and it is not on a
 * chain of delayed messages; otherwise a message of its own. SQS holds about 120,000 messages in
 * flight per queue and delayed ones without limit, so a dead endpoint's long backoff never fills
 * the queue's in-flight room (docs/aws.md, "Retries in flight").
 */
export function waitFor(
  message: ReceivedDeliveryMessage,
  options: { readonly alone: boolean; readonly inFlightWaitSeconds: number; readonly now: () => number },
  queue: {
    setVisibility(delaySeconds: number): Promise<void>;
    send(message: DeliveryMessage): Promise<void>;
    sendNext(message: DeliveryMessage): Promise<void>;
  },
): Later {
  return async (delaySeconds, how = {}) => {
    if (how.until !== undefined) {
      // Sent at once, not gathered: a send held back would bring it back late for its instant.
      const next = { ...(how.next ?? message), notBefore: iso(how.until) };
      await queue.send(onItsOwn(next, delaySeconds, options.now()));
      return 'moved';
    }
    if (how.next) {
      await queue.sendNext(onItsOwn(how.next, delaySeconds, options.now()));
      return 'moved';
    }
    if (options.alone && delaySeconds <= options.inFlightWaitSeconds && message.notBefore === undefined) {
      // Back on a later receive, the delivery's row is read first (attempt.ts): nothing more to mark.
      await queue.setVisibility(delaySeconds);
      return 'kept';
    }
    await queue.send(onItsOwn(how.reread ? { ...message, reread: true } : message, delaySeconds, options.now()));
    return 'moved';
  };
}

/**
 * A delivery in a message of its own, due in `delaySeconds`. A wait past MAX_WAIT_LINK_SECONDS
 * (14 minutes) goes as far as that, carrying `notBefore`: the sender sends it on, reading
 * nothing, until that instant has come. A link sent on keeps the instant it carries (the whole
 * seconds of each delay would otherwise push it later at every link). The last link keeps it
 * only when its delay falls short of it (a wait for an instant: `wholeSecondsToward`), for the
 * sender to hold the rest.
 */
export function onItsOwn(message: ReceivedDeliveryMessage, delaySeconds: number, nowMs: number): DeliveryMessage {
  const { notBefore: carried, ...rest } = message;
  if (delaySeconds <= MAX_WAIT_LINK_SECONDS)
    return carried !== undefined && Date.parse(carried) > nowMs + delaySeconds * 1000
      ? { ...rest, delaySeconds, notBefore: carried }
      : { ...rest, delaySeconds };
  const notBefore = carried !== undefined && Date.parse(carried) > nowMs ? carried : iso(nowMs + delaySeconds * 1000);
  return { ...rest, delaySeconds: MAX_WAIT_LINK_SECONDS, notBefore };
}

/**
 * A link of a chain whose wait is not over: sent on, nothing read, until the instant it carries
 * is less than a second away (the rate gate holds that rest before the attempt: app/send/rate-gate.ts).
 * Undefined for any other message, which goes on to its attempt.
 */
export function stillOnItsWay(message: ReceivedDeliveryMessage, nowMs: number): SendOutcome | undefined {
  const waitMs = message.notBefore === undefined ? 0 : Date.parse(message.notBefore) - nowMs;
  if (waitMs < 1000) return undefined;
  return { kind: 'retry_later', delaySeconds: Math.ceil(waitMs / 1000), note: `waits until ${message.notBefore}` };
}

/**
 * Whether a received message is finished with: every delivery it carries done, or released to
 * a message of its own. One that is not keeps the whole message; for a pack, its other
 * deliveries, back with it, read their rows and find them settled.
 */
export function messageFinished(fates: readonly MessageFate[]): boolean {
  return fates.every((f) => f.kind === 'done' || f.released);
}

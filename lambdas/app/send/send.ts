import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { actionFor, decide, describe, failedOutcome, type AttemptResult, type Outcome } from '#domain/classify.ts';
import { signatureHeaders } from '#domain/signing.ts';
import { allows, isDeadLetter, isTerminal, STATE, targetOf, type CompletionAction, type DeliveryState } from '#domain/states.ts';
import { deadLetterEventTtl } from '#domain/retention.ts';
import { endedReason, liveSecretIndexes } from '#domain/subscription-states.ts';
import { openSecrets } from '#app/secrets/open-secrets.ts';
import { capUtf8, type Delivery, type InlineAttempt, type RecordedAttempt, type Subscription } from '#domain/types.ts';
import type { Completion } from '#ports/delivery-store.ts';
import type { ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { Deps } from '#app/deps.ts';
import { AttemptNumberTakenError, DeliveryStageError } from '#app/errors.ts';
import { firstRowOf, rowOrFirstRow, writeFirstRow } from '#app/send/first-row.ts';
import { recordHealth } from '#app/send/health.ts';
import { rateGateBeforeClaim, rateGateBeforePost } from '#app/send/rate-gate.ts';
import { routedChange } from '#app/subscriptions/routing.ts';
import { iso } from '#domain/time.ts';
import { METRICS, type CountMetric } from '#config/topology.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type SendDeps = Pick<Deps, 'subscriptions' | 'routes' | 'events' | 'deliveries' | 'attempts' | 'clock' | 'metrics' | 'http' | 'attemptTimeoutMs' | 'sweepGraceSeconds' | 'defaultRetryPolicy' | 'autoPause' | 'secretOpener' | 'retention' | 'sendRate'>;

/** How a message reached the sender: its receive count and when it was sent (SQS attributes). */
export interface Receipt {
  readonly receiveCount: number;
  readonly sentAtMs: number;
}

/** How long a paused subscription's delivery waits before it is looked at again (resume re-enqueues at once). */
export const PAUSED_RECHECK_SECONDS = 3600;

/**
 * How long a claim holds: two attempt timeouts and a margin, so only a worker that stopped
 * answering loses it. The local runtime receives delivery messages for as long, so a message
 * whose worker died comes back as soon as its claim may be taken over.
 */
export function claimLeaseMs(attemptTimeoutMs: number): number {
  return 2 * attemptTimeoutMs + 5000;
}

/** A delivery message as received (its delay is the queue's business). */
export type DeliveryMessageBody = ReceivedDeliveryMessage;

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
  /** The action recorded, or `claim_lost` when the sweeper took the delivery back meanwhile (the newer claim records the outcome). */
  readonly outcome: CompletionAction | 'claim_lost';
  /** The delivery's state after the attempt; absent when the claim was lost. */
  readonly state?: DeliveryState;
  /** For a retry: the backoff delay. */
  readonly retryInSeconds?: number;
}

/** `attempt` is present whenever a POST was made and its result recorded (or lost to the sweeper). */
export type SendOutcome =
  | { readonly kind: 'done'; readonly note: string; readonly outcome?: Outcome; readonly attempt?: AttemptReport }
  | {
      readonly kind: 'retry_later';
      readonly delaySeconds: number;
      readonly note: string;
      readonly attempt?: AttemptReport;
      /** A recorded retry's: the message the delivery comes back as, in place of the one received (`retryMessage`). */
      readonly next?: ReceivedDeliveryMessage;
    };

/**
 * Signs, POSTs and records one delivery; what happens to its SQS message is decided by `settle`
 * (settle.ts). A fresh delivery's first receive takes the happy path: no claim and no read but
 * the cached subscription, and the outcome with the attempt inline as the row's one write
 * (`recordFirst`). A planned retry's message goes unclaimed too while the row still reads as
 * that retry recorded it: one read, and the outcome as the claim's and completion's one write
 * (`recordUnclaimed`). Everything else (a message back after a dead worker or a stage failure,
 * a replay's, the sweeper's, a paused or gone subscription) claims the row first.
 */
export async function processDelivery(deps: SendDeps, message: DeliveryMessageBody, receipt?: Receipt): Promise<SendOutcome> {
  const { deliveryId } = message;
  // A link of a long wait's chain of delayed messages: sent on, nothing read, until its time.
  const waitMs = message.notBefore === undefined ? 0 : Date.parse(message.notBefore) - deps.clock.now();
  if (waitMs > 0) return { kind: 'retry_later', delaySeconds: Math.ceil(waitMs / 1000), note: `waits until ${message.notBefore}` };
  const prepared = await stage('before_attempt', deliveryId, async () => (receipt ? await prepareUnclaimed(deps, message, receipt) : undefined) ?? prepare(deps, message, receipt));
  if (prepared.kind !== 'ready') return prepared;
  const { delivery, body, secrets } = prepared;
  // The rate limit counts attempts as they start (app/send/rate-gate.ts); only the happy path's can still be told to wait here.
  const waiting = await stage('before_attempt', deliveryId, async () => {
    const wait = await rateGateBeforePost(deps, prepared.subscription, message, prepared.hold.kind !== 'claimed');
    // Told to wait before its one write: it waits as the row it would have had, and is claimed when it comes back.
    if (wait && prepared.hold.kind === 'first') await writeFirstRow(deps, message, prepared.subscription);
    return wait;
  });
  if (waiting) return waiting;

  const startedAtMs = deps.clock.now();
  const headers = {
    ...delivery.headers,
    // The subscription's own headers as they are now: an update applies to the next attempt.
    ...prepared.subscription.headers,
    ...signatureHeaders(secrets, delivery.eventId, Math.floor(startedAtMs / 1000), body),
  };
  const result = await stage('attempt', deliveryId, () =>
    deps.http.post({ url: prepared.subscription.url, headers, body, timeoutMs: deps.attemptTimeoutMs }),
  );

  return stage('after_attempt', deliveryId, () => record(deps, prepared, result, startedAtMs));
}

/**
 * How an attempt holds its delivery: `claimed` in the row (a lease), or claimed in memory only,
 * as its message says the row stands: `first`, no row yet (the happy path: the outcome is the
 * row's first write, its attempt inline), or `retry`, as the attempt before recorded it (the
 * outcome's write holds only while the row is still as `found`).
 */
type Hold = { readonly kind: 'claimed' } | { readonly kind: 'first' } | { readonly kind: 'retry'; readonly found: RecordedAttempt };
const CLAIMED: Hold = { kind: 'claimed' };

interface Ready {
  readonly kind: 'ready';
  /** As claimed: in flight, its attempt counted. */
  readonly delivery: Delivery;
  readonly subscription: Subscription;
  readonly body: string;
  readonly eventType: string;
  readonly secrets: readonly string[];
  readonly hold: Hold;
}
type Prepared = Ready | SendOutcome;

/**
 * An attempt goes unclaimed only while the delivery has been due for less than the sweeper's
 * grace less a claim lease (a fresh delivery since it was sent, a retry since its due time).
 * From the grace on, the sweeper may send the delivery again (finish-publish.ts, sweep.ts) and
 * its copy is claimed; an attempt begun before then is recorded (or lost) within a lease, so the
 * two never both go unclaimed. A fresh message must also be on its first receive (back, its
 * first attempt may have been made: the claimed path sorts that out); a recorded retry's row
 * read tells the same (`rowAsRecorded`), so its message may come back and go on, and it holds
 * the row against any other copy (the hold), not against itself.
 */
function mayGoUnclaimed(deps: Pick<SendDeps, 'clock' | 'sweepGraceSeconds' | 'attemptTimeoutMs'>, dueSinceMs: number): boolean {
  return deps.clock.now() - dueSinceMs < unclaimedWindowMs(deps);
}

/** How long after a delivery is due its attempt may still go unclaimed (0 or less: never). */
function unclaimedWindowMs(deps: Pick<SendDeps, 'sweepGraceSeconds' | 'attemptTimeoutMs'>): number {
  return deps.sweepGraceSeconds * 1000 - claimLeaseMs(deps.attemptTimeoutMs);
}

/**
 * The preparation of an attempt without a claim, or undefined to take the claimed path: a fresh
 * message carrying its body on its first receive (the happy path), or a recorded retry's whose
 * row still reads as it recorded, for a subscription that is active now.
 */
async function prepareUnclaimed(deps: SendDeps, message: DeliveryMessageBody, receipt: Receipt): Promise<Ready | undefined> {
  const { fresh, recorded, eventType } = message;
  const eligible = recorded ? mayGoUnclaimed(deps, Date.parse(recorded.nextAttemptAt)) : fresh && message.body !== undefined && receipt.receiveCount <= 1 && mayGoUnclaimed(deps, receipt.sentAtMs);
  if (!eligible || !eventType) return undefined;
  const subscription = await deps.subscriptions.getCached(message.subscriptionId);
  if (subscription?.state !== 'active') return undefined;
  const nowMs = deps.clock.now();
  const found = recorded ? await rowAsRecorded(deps, message.deliveryId, recorded, nowMs) : firstRowOf(message, subscription);
  if (!found) return undefined;
  // A body too large to travel (delivery-message-codec.ts) is read, as the claimed path reads it.
  const body = message.body ?? (await deps.events.get(found.eventId))?.body;
  if (body === undefined) return undefined;
  const delivery: Delivery = { ...found, state: STATE.inFlight, attempts: found.attempts + 1, attemptSeq: found.attemptSeq + 1, updatedAt: iso(nowMs) };
  const hold: Hold = recorded ? { kind: 'retry', found: recorded } : { kind: 'first' };
  return { kind: 'ready', delivery, subscription, body, eventType, secrets: await signingSecrets(deps, subscription), hold };
}

/**
 * The row a recorded retry's attempt starts from: undefined, so the attempt is claimed, when
 * anything wrote it since (an attempt of another copy, a pause's deferral, a resume's drain, the
 * sweeper) or it is not due yet. This read is what keeps a stale copy from sending again.
 */
async function rowAsRecorded(deps: Pick<SendDeps, 'deliveries'>, id: string, recorded: RecordedAttempt, nowMs: number): Promise<Delivery | undefined> {
  const row = await deps.deliveries.get(id);
  const asRecorded = row && allows('claim', row.state) && row.attemptSeq === recorded.attemptSeq && row.nextAttemptAt === recorded.nextAttemptAt;
  return asRecorded && Date.parse(row.nextAttemptAt) <= nowMs ? row : undefined;
}

/**
 * The claimed path. Publish writes no row, so a fresh delivery that comes here on its first
 * receive gets the row it would have had first (`written` says that was done, or need not be).
 */
async function prepare(deps: SendDeps, message: DeliveryMessageBody, receipt?: Receipt, written = false): Promise<Prepared> {
  const nowMs = deps.clock.now();
  const subscription = await deps.subscriptions.get(message.subscriptionId);
  if (!written && subscription && message.fresh && (receipt?.receiveCount ?? 1) <= 1) {
    await writeFirstRow(deps, message, subscription);
    written = true;
  }
  if (subscription?.state === 'paused') {
    if ((await deferWhilePaused(deps, message, nowMs, subscription)) === 'resumed') return prepare(deps, message, receipt, true);
    return { kind: 'done', note: 'subscription paused: waits for resume' };
  }
  // Before the claim: a delivery held back by its subscription's rate limit is not an attempt.
  const waiting = await rateGateBeforeClaim(deps, subscription, message);
  if (waiting) return waiting;

  const lease = iso(nowMs + claimLeaseMs(deps.attemptTimeoutMs));
  let claim = await deps.deliveries.claim(message.deliveryId, iso(nowMs), lease);
  // A first attempt's message back before that attempt's one write (its worker died, a stage failed): the row is
  // written now, from what the message carries, then claimed (its rate-limit turn, if any, is already counted).
  if (claim.kind === 'not_claimable' && !claim.current && !written && subscription && (await writeFirstRow(deps, message, subscription))) {
    claim = await deps.deliveries.claim(message.deliveryId, iso(nowMs), lease);
  }
  if (claim.kind === 'not_claimable') {
    const current = claim.current;
    if (!current) return { kind: 'done', note: 'unknown delivery' };
    if (isTerminal(current.state)) return { kind: 'done', note: `already ${current.state}` };
    if (current.state === STATE.inFlight) {
      // Its worker died (the lease ran out) and SQS brought the message back: take the delivery over now rather than wait for the sweeper.
      if (current.leaseUntil && current.leaseUntil < iso(nowMs) && (await deps.deliveries.release(current.id, current.attemptSeq, iso(nowMs)))) return prepare(deps, message, receipt, true);
      // Another worker holds the claim; if it dies, this message (back after its delay) or the sweeper takes over.
      const wait = current.leaseUntil ? Math.ceil((Date.parse(current.leaseUntil) - nowMs) / 1000) : 0;
      return { kind: 'retry_later', delaySeconds: Math.max(1, wait), note: 'claimed by another worker' };
    }
    // A deleted or disabled subscription's delivery is dead-lettered now, not at its due time:
    // a deferral made while it was paused must not hold it back for an hour.
    if (endedReason(subscription) && current.state === STATE.pending && (await deps.deliveries.reschedule(current.id, current.nextAttemptAt, iso(nowMs), iso(nowMs)))) return prepare(deps, message, receipt, true);
    // Held by its recorded retry's message (a pending row's leaseUntil, always past its due time): that message makes the
    // attempt, or, lost, leaves it to this copy at the hold's end.
    const until = current.leaseUntil ?? current.nextAttemptAt;
    const wait = Math.ceil((Date.parse(until) - nowMs) / 1000);
    return { kind: 'retry_later', delaySeconds: Math.max(1, wait), note: current.leaseUntil ? 'held for its recorded retry' : 'not due yet' };
  }
  const delivery = claim.delivery;
  const ended = endedReason(subscription);
  // A missing subscription has an ended reason too; `!subscription` only narrows the type.
  if (ended !== undefined || !subscription) {
    const reason = ended!;
    await complete(deps, delivery, failedOutcome(reason), nowMs);
    return { kind: 'done', note: reason };
  }
  const carried = message.body !== undefined && message.eventType ? { body: message.body, type: message.eventType } : undefined;
  const event = carried ?? (await deps.events.get(delivery.eventId));
  if (!event) {
    await complete(deps, delivery, failedOutcome('event body no longer stored'), nowMs);
    return { kind: 'done', note: 'event missing' };
  }
  return { kind: 'ready', delivery, subscription, body: event.body, eventType: event.type, secrets: await signingSecrets(deps, subscription), hold: CLAIMED };
}

/**
 * The subscription's secrets in plain text, for this attempt only, less any whose rotation
 * overlap has ended (docs/design.md, "Secrets at rest").
 */
async function signingSecrets(deps: Pick<SendDeps, 'secretOpener' | 'clock'>, subscription: Subscription): Promise<readonly string[]> {
  const all = await openSecrets(deps, subscription);
  return liveSecretIndexes(subscription, all.length, deps.clock.now()).map((i) => all[i]!);
}

/**
 * Parks a paused subscription's waiting delivery until the recheck (resume re-enqueues it at
 * once). Answers `resumed` when the subscription was resumed meanwhile: a resume that read the
 * backlog before this write could not move the delivery, so the write is undone and the
 * delivery goes on now rather than an hour later. The re-read after the write closes that race:
 * a resume sets the state before it reads the backlog.
 */
async function deferWhilePaused(deps: SendDeps, message: DeliveryMessageBody, nowMs: number, subscription: Subscription): Promise<'deferred' | 'resumed'> {
  // A first attempt's message back before that attempt's one write has no row yet: it gets it here, to wait in.
  const current = await rowOrFirstRow(deps, message, subscription);
  // Only a waiting delivery moves; one that is in flight or finished is left to its own course.
  if (!current || !allows('reschedule', current.state)) return 'deferred';
  const recheck = iso(Math.max(Math.min(nowMs + PAUSED_RECHECK_SECONDS * 1000, Date.parse(current.giveUpAt)), nowMs));
  if (!(await deps.deliveries.reschedule(message.deliveryId, current.nextAttemptAt, recheck, iso(nowMs)))) return 'deferred';
  if ((await deps.subscriptions.get(message.subscriptionId))?.state === 'paused') return 'deferred';
  // Only the value written here is undone: if the resume's drain moved it since, that stands.
  await deps.deliveries.reschedule(message.deliveryId, recheck, iso(nowMs), iso(nowMs));
  return 'resumed';
}

async function record(deps: SendDeps, prepared: Ready, result: AttemptResult, startedAtMs: number): Promise<SendOutcome> {
  const { delivery, subscription, eventType } = prepared;
  const nowMs = deps.clock.now();
  const outcome = decide({
    result,
    attempts: delivery.attempts,
    policy: subscription.retryPolicy ?? deps.defaultRetryPolicy,
    nowMs,
    giveUpAtMs: Date.parse(delivery.giveUpAt),
    random: deps.clock.random(),
  });
  const attempt: InlineAttempt = {
    seq: delivery.attemptSeq,
    attempt: delivery.attempts,
    startedAt: iso(startedAtMs),
    durationMs: result.durationMs,
    ...(result.kind === 'response'
      ? { status: result.status, responseSnippet: result.bodySnippet }
      : { error: describe(result) }),
  };
  const first = prepared.hold.kind === 'first';
  const logged = first ? delivery.attemptSeq : await putAttempt(deps, delivery.id, attempt);
  deps.metrics.latency(result.durationMs);
  // One copy of the row as attempted (where it went), its attempt inline on the happy path. A recorded retry's outcome
  // writes the number its attempt was logged under; a claimed one's write holds only while the row keeps its claim's number.
  const attempted: Delivery = first
    ? { ...delivery, url: subscription.url, firstAttempt: attempt }
    : { ...delivery, url: subscription.url, ...(prepared.hold.kind === 'retry' ? { attemptSeq: logged } : {}) };
  const recorded = await complete(deps, attempted, outcome, nowMs, result, prepared.hold);
  const report = (fields: Pick<AttemptReport, 'outcome' | 'state' | 'retryInSeconds'>) => attemptReport(delivery, eventType, result, fields);
  if (!recorded) return { kind: 'done', note: 'claim lost to another worker or the sweeper; the newer claim records the outcome', attempt: report({ outcome: 'claim_lost' }) };
  const action = actionFor(outcome);
  const state = targetOf(action);
  if (outcome.kind === 'dead' && outcome.disableSubscription) {
    // Disabled is out of fan-out: the routing index follows the row (app/subscriptions/routing.ts).
    await routedChange(deps, subscription.id, () => deps.subscriptions.setState(subscription.id, 'disabled', `endpoint answered 410 Gone for delivery ${delivery.id}`, iso(nowMs)));
  } else if (isTerminal(state)) {
    await recordHealth(deps, deps.autoPause ?? DEFAULT_AUTO_PAUSE_POLICY, subscription, state, nowMs);
  }
  if (outcome.kind === 'retry') {
    const attempt = report({ outcome: action, state, retryInSeconds: outcome.delaySeconds });
    return { kind: 'retry_later', delaySeconds: outcome.delaySeconds, note: describe(result), attempt, next: retryMessage({ ...prepared, delivery: attempted }, outcome.nextAttemptAtMs) };
  }
  return { kind: 'done', note: outcome.kind, outcome, attempt: report({ outcome: action, state }) };
}

/** How many copies of one delivery may have logged an attempt under this one's number before it (each killed after its attempt row, before its outcome). */
const TAKEN_ATTEMPT_NUMBERS_MAX = 10;

/**
 * Logs a later attempt (the happy path's is inline in the row) and returns the number it was
 * logged under. The number can be taken already: a recorded retry's message made its attempt
 * unclaimed, logged it, and was killed before writing its outcome, so the row still reads as
 * before that attempt, and the next copy (the same message back, or a claimed one, whose claim
 * moves the row to that very number) makes the attempt again. That POST happened and stays in
 * the log; this attempt takes the next free number. (Failing instead kept the message, which
 * came back and posted again at every return.)
 */
async function putAttempt(deps: Pick<SendDeps, 'attempts'>, deliveryId: string, attempt: InlineAttempt): Promise<number> {
  for (let seq = attempt.seq; seq < attempt.seq + TAKEN_ATTEMPT_NUMBERS_MAX; seq++) {
    if (await deps.attempts.put({ deliveryId, ...attempt, seq })) return seq;
  }
  throw new AttemptNumberTakenError(deliveryId, attempt.seq, TAKEN_ATTEMPT_NUMBERS_MAX);
}

/**
 * The message a recorded retry comes back as: the body and type its attempt needs, and the row
 * as recorded, so its first receive may go unclaimed (`prepareUnclaimed`).
 */
function retryMessage(prepared: Ready, nextAttemptAtMs: number): ReceivedDeliveryMessage {
  const { delivery, body, eventType } = prepared;
  return { deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, eventType, body, recorded: { attemptSeq: delivery.attemptSeq, nextAttemptAt: iso(nextAttemptAtMs) } };
}

function attemptReport(delivery: Delivery, eventType: string, result: AttemptResult, fields: Pick<AttemptReport, 'outcome' | 'state' | 'retryInSeconds'>): AttemptReport {
  return {
    deliveryId: delivery.id,
    subscriptionId: delivery.subscriptionId,
    eventType,
    host: hostOf(delivery.url),
    attempt: delivery.attempts,
    ...(result.kind === 'response' ? { status: result.status } : { error: describe(result) }),
    durationMs: result.durationMs,
    ...fields,
  };
}

/**
 * Records `outcome` as its state-machine action; the store writes the action's target state,
 * in the write that fits how the attempt held the delivery (`Hold`).
 */
async function complete(deps: SendDeps, delivery: Delivery, outcome: Outcome, nowMs: number, result?: AttemptResult, hold: Hold = CLAIMED): Promise<boolean> {
  const response = result?.kind === 'response' ? result : undefined;
  const action = actionFor(outcome);
  const window = unclaimedWindowMs(deps);
  const completion: Completion = {
    action,
    attempts: delivery.attempts,
    nextAttemptAt: iso(outcome.kind === 'retry' ? outcome.nextAttemptAtMs : nowMs),
    ...(response ? { lastStatus: response.status, lastResponse: capUtf8(response.bodySnippet) } : {}),
    ...(action === 'succeed' ? {} : { lastError: outcome.kind === 'dead' ? outcome.reason : result ? describe(result) : 'unknown' }),
    // An attempt was made: the row shows where it went (an update may have moved the subscription).
    ...(result ? { url: delivery.url } : {}),
    // A retry's message carries the row as recorded (retryMessage) and alone makes the next attempt while it may go unclaimed:
    // any other copy (a message whose worker died after this write, say) would otherwise claim and post beside it.
    ...(outcome.kind === 'retry' && window > 0 ? { heldUntil: iso(outcome.nextAttemptAtMs + window) } : {}),
    updatedAt: iso(nowMs),
  };
  // The event's body first outlives the dead letter, so a crash between the two leaves a body kept too long, never a dead letter without one.
  if (isDeadLetter(targetOf(action))) await deps.events.extendRetention(delivery.eventId, deadLetterEventTtl(nowMs, deps.retention));
  const ok =
    hold.kind === 'first' ? await deps.deliveries.recordFirst(delivery, completion)
    : hold.kind === 'retry' ? await deps.deliveries.recordUnclaimed(delivery, completion, hold.found)
    : await deps.deliveries.complete(delivery, completion);
  // Counted only when recorded: a lost claim's outcome is the newer claim's to count.
  if (ok) for (const metric of OUTCOME_METRICS[action]) deps.metrics.count(metric);
  return ok;
}

/** What each recorded outcome adds to the delivery metrics (a retry is not an outcome yet). */
const OUTCOME_METRICS: Readonly<Record<CompletionAction, readonly CountMetric[]>> = {
  succeed: [METRICS.succeeded],
  retry: [METRICS.retried],
  fail_permanently: [METRICS.failed, METRICS.deadLettered],
  give_up: [METRICS.expired, METRICS.deadLettered],
};

/**
 * The attempt report's host, with a one-entry memo: a busy sender reports the same
 * subscription's host many times over, and a URL parse costs about 0.5 µs.
 */
let lastUrl: string | undefined;
let lastHost = '';
function hostOf(url: string): string {
  if (url !== lastUrl) {
    // Stored URLs are normalised at creation; a row that is not one must not fail the recorded attempt.
    lastHost = URL.canParse(url) ? new URL(url).host : '(invalid URL)';
    lastUrl = url;
  }
  return lastHost;
}

async function stage<T>(name: DeliveryStageError['stage'], deliveryId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw new DeliveryStageError(name, deliveryId, { cause });
  }
}

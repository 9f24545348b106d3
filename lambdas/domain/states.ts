import { InvalidTransitionError } from './errors.ts';

/** The only stored delivery states (docs/design.md). `failed` and `expired` are the dead letters. */
export const DELIVERY_STATES = ['pending', 'in_flight', 'delivered', 'failed', 'expired'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * Each state by name. Code outside the domain names a state through this (or better, asks the
 * transitions below), never with a string literal, so the state machine lives in this file alone.
 */
export const STATE = Object.freeze({
  pending: 'pending',
  inFlight: 'in_flight',
  delivered: 'delivered',
  failed: 'failed',
  expired: 'expired',
} as const satisfies Record<string, DeliveryState>);

/** Awaiting an attempt or in one: what the sweeper watches. */
export const LIVE_STATES = [STATE.pending, STATE.inFlight] as const satisfies readonly DeliveryState[];
export function isLive(state: DeliveryState): boolean {
  return (LIVE_STATES as readonly string[]).includes(state);
}

export const DEAD_LETTER_STATES = ['failed', 'expired'] as const satisfies readonly DeliveryState[];
export type DeadLetterState = (typeof DEAD_LETTER_STATES)[number];

export const TERMINAL_STATES = ['delivered', 'failed', 'expired'] as const satisfies readonly DeliveryState[];
export type TerminalState = (typeof TERMINAL_STATES)[number];

export const REPLAYABLE_STATES = ['failed', 'expired', 'delivered'] as const satisfies readonly DeliveryState[];

export function isDeliveryState(value: unknown): value is DeliveryState {
  return typeof value === 'string' && (DELIVERY_STATES as readonly string[]).includes(value);
}
export function isTerminal(state: DeliveryState): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}
export function isDeadLetter(state: DeliveryState): state is DeadLetterState {
  return (DEAD_LETTER_STATES as readonly string[]).includes(state);
}

/**
 * What can happen to a delivery; each is exactly one edge of the state diagram, and each store
 * write is exactly one action (the store conditions the write on `statesAllowing(action)` and
 * writes `targetOf(action)`).
 */
export type DeliveryAction =
  | 'succeed'
  | 'fail_permanently'
  | 'retry'
  | 'give_up'
  | 'expire'
  | 'release'
  | 'reschedule'
  | 'retry_now'
  | 'replay';

/** The actions that record an attempt's outcome. */
export type CompletionAction = Extract<DeliveryAction, 'succeed' | 'fail_permanently' | 'retry' | 'give_up'>;

/**
 * An attempt is made from `pending` and its outcome written from `pending`, in one write
 * conditional on the row being as the attempt's message expected (app/send/send.ts): nothing is
 * claimed, so `in_flight` is never written. It stays a state for rows an earlier version left
 * claimed; `release` hands those back (the sweeper, once) and nothing else reads it.
 */
const EDGES: Readonly<Record<DeliveryAction, { readonly from: readonly DeliveryState[]; readonly to: DeliveryState }>> =
  {
    succeed: { from: [STATE.pending], to: STATE.delivered },
    fail_permanently: { from: [STATE.pending], to: STATE.failed },
    retry: { from: [STATE.pending], to: STATE.pending },
    // The sender gives up after an attempt whose next try would land past the deadline (or past maxAttempts)...
    give_up: { from: [STATE.pending], to: STATE.expired },
    // ...and the sweeper (or the rate gate) expires one whose deadline passed while it waited, with no attempt.
    expire: { from: [STATE.pending], to: STATE.expired },
    // A row an earlier version left claimed by a worker that died: the sweeper hands it back.
    release: { from: [STATE.inFlight], to: STATE.pending },
    // A waiting delivery's next attempt moves (paused subscription, lost message, a long rate-limit wait, a drain).
    reschedule: { from: [STATE.pending], to: STATE.pending },
    // Someone asked for the next attempt at once (Retry now): due now, the backoff and deadline started afresh.
    retry_now: { from: [STATE.pending], to: STATE.pending },
    replay: { from: REPLAYABLE_STATES, to: STATE.pending },
  };

/** The state after `action`, or InvalidTransitionError when the diagram has no such edge. */
export function transition(from: DeliveryState, action: DeliveryAction): DeliveryState {
  if (!allows(action, from)) throw new InvalidTransitionError(from, action);
  return EDGES[action].to;
}

/** Whether the diagram has an edge for `action` out of `state`. */
export function allows(action: DeliveryAction, state: DeliveryState): boolean {
  return EDGES[action].from.includes(state);
}

/** The states from which `action` is allowed: adapters turn this into a conditional write. */
export function statesAllowing(action: DeliveryAction): readonly DeliveryState[] {
  return EDGES[action].from;
}

/** The state `action` leads to: what the store writes when the condition holds. */
export function targetOf(action: DeliveryAction): DeliveryState {
  return EDGES[action].to;
}

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
export const LIVE_STATES = ['pending', 'in_flight'] as const satisfies readonly DeliveryState[];
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

/** What can happen to a delivery; each maps to exactly one edge of the state diagram. */
export type DeliveryAction =
  | 'claim'
  | 'succeed'
  | 'fail_permanently'
  | 'retry'
  | 'expire'
  | 'release'
  | 'replay';

const EDGES: Readonly<Record<DeliveryAction, { from: readonly DeliveryState[]; to: DeliveryState }>> = {
  claim: { from: ['pending'], to: 'in_flight' },
  succeed: { from: ['in_flight'], to: 'delivered' },
  fail_permanently: { from: ['in_flight'], to: 'failed' },
  retry: { from: ['in_flight'], to: 'pending' },
  // The sender expires an in-flight delivery whose next try would land past the deadline;
  // the sweeper expires a pending one whose deadline passed while it waited.
  expire: { from: ['in_flight', 'pending'], to: 'expired' },
  // A worker died mid-attempt: the sweeper hands the delivery back.
  release: { from: ['in_flight'], to: 'pending' },
  replay: { from: REPLAYABLE_STATES, to: 'pending' },
};

/** The state after `action`, or InvalidTransitionError when the diagram has no such edge. */
export function transition(from: DeliveryState, action: DeliveryAction): DeliveryState {
  const edge = EDGES[action];
  if (!edge.from.includes(from)) throw new InvalidTransitionError(from, action);
  return edge.to;
}

/** The states from which `action` is allowed: adapters turn this into a conditional write. */
export function statesAllowing(action: DeliveryAction): readonly DeliveryState[] {
  return EDGES[action].from;
}

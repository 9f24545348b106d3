import { numericPolicy } from './policy.ts';
import { earliestTurn, sendWindowAt, turnWindow } from './send-rate.ts';
import { DEAD_LETTER_STATES, REPLAYABLE_STATES, type DeliveryState } from './states.ts';

export type ReplayableState = (typeof REPLAYABLE_STATES)[number];

export function isReplayableState(value: unknown): value is ReplayableState {
  return typeof value === 'string' && (REPLAYABLE_STATES as readonly string[]).includes(value);
}

/** A bulk replay selects the deliveries in `states`, created within [createdFrom, createdTo] (ISO 8601, inclusive). */
export interface ReplayCriteria {
  readonly states: readonly ReplayableState[];
  readonly subscriptionId?: string;
  readonly tenantId?: string;
  readonly createdFrom: string;
  readonly createdTo: string;
}

/** Without `states`, a bulk replay takes the dead letters: delivered deliveries are re-sent only when asked for. */
export const DEFAULT_REPLAY_STATES: readonly ReplayableState[] = DEAD_LETTER_STATES;

const REPLAY_POLICY = numericPolicy('replayPolicy', {
  /**
   * Re-attempts of one bulk replay are spread uniformly at random over this many seconds. A
   * day at most: a longer spread is a pause, and the sweeper's grace is measured in minutes.
   */
  windowSeconds: { default: 300, min: 0, max: 86_400, integer: true },
  /** Deliveries replayed between two checkpoints of the audit record. */
  pageSize: { default: 200, min: 1, max: 1000, integer: true },
});

/** How bulk replays behave (docs/design.md; docs/operations.md, "Bulk replay"); configuration with documented defaults. */
export type ReplayPolicy = typeof DEFAULT_REPLAY_POLICY;
export const DEFAULT_REPLAY_POLICY = REPLAY_POLICY.defaults;
export const resolveReplayPolicy = REPLAY_POLICY.resolve;

/** The fields of a stored delivery that decide whether a bulk replay takes it. */
export interface ReplayCandidate {
  readonly state: DeliveryState;
  readonly subscriptionId: string;
  readonly tenantId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * Whether a bulk replay started at `startedAt` takes this delivery. The store's index query
 * narrows the candidates; this is the rule. A delivery that changed after the replay started
 * (it was replayed already, or failed again since) is not this replay's business, which is
 * also what stops a replay from chasing its own fresh dead letters forever.
 */
export function matchesCriteria(d: ReplayCandidate, criteria: ReplayCriteria, startedAt: string): boolean {
  return (
    (criteria.states as readonly string[]).includes(d.state) &&
    d.createdAt >= criteria.createdFrom &&
    d.createdAt <= criteria.createdTo &&
    d.updatedAt <= startedAt &&
    (criteria.subscriptionId === undefined || d.subscriptionId === criteria.subscriptionId) &&
    (criteria.tenantId === undefined || d.tenantId === criteria.tenantId)
  );
}

/**
 * Seconds from now until a replayed delivery's next attempt: uniform over the window, whole
 * seconds (SQS delays are whole seconds), so a large replay never lands on workers and
 * receivers at one instant.
 */
export function spreadDelaySeconds(windowSeconds: number, random: number): number {
  if (windowSeconds <= 0) return 0;
  return Math.min(windowSeconds - 1, Math.floor(random * windowSeconds));
}

/**
 * How long after a replay run's start its pace begins: time for its first page to be written and
 * its messages sent (a page's rows are written before its messages go), so that its first turns
 * have not passed when they arrive (a second and more for 200 on the local emulator).
 */
export const PACE_START_MS = 2000;

/**
 * When the `k`-th delivery (0-based) that a replay run started at `startedAtMs` replays to a
 * subscription limited to `limit` a second is due: the start of the sub-window of its own turn,
 * the k-th of the pace (domain/send-rate.ts), so that its dead letters come due at the limit's
 * pace, L a second over every sub-window. All due at once, they would only take turns at the
 * rate gate, and the burst of first attempts would hold up the deliveries back for theirs
 * (docs/design.md, "Rate limits"). A turn is a forecast: the gate's count still decides.
 */
export function pacedDueMs(limit: number, startedAtMs: number, k: number): number {
  return turnWindow(limit, earliestTurn(sendWindowAt(limit, startedAtMs + PACE_START_MS)) + k).startsAtMs;
}

export type ReplayStatus = 'running' | 'completed';

/** The audit record of one bulk replay, updated at every page so an interrupted replay resumes where it stopped. */
export interface ReplayRecord {
  readonly id: string;
  /** Who asked, as the caller declared it (CLI user, IAM identity); the key only says they were allowed to. */
  readonly operator: string;
  /** How the request was authenticated: `admin` (API key) or `invoke` (direct Lambda invocation, IAM). */
  readonly principal: string;
  readonly criteria: ReplayCriteria;
  readonly dryRun: boolean;
  readonly windowSeconds: number;
  readonly status: ReplayStatus;
  readonly matched: number;
  readonly replayed: number;
  /** Matched by the index, but no longer replayable when reached (changed meanwhile). */
  readonly skipped: number;
  /** A dry run's first few matches. */
  readonly sample?: readonly string[];
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly finishedAt?: string;
  /** Where the next page starts (opaque, from the delivery store); absent before the first page and when done. */
  readonly cursor?: string;
  /** Whoever holds the lease may process pages until `leaseUntil`; after that anyone may resume. */
  readonly leaseOwner?: string;
  readonly leaseUntil?: string;
}

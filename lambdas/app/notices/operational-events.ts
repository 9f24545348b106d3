import { z } from 'zod';
import { replayCriteria, subscriptionEvent } from '#app/schema/responses.ts';
import { NOTICE_EVENT_TYPES, type NoticeKind } from '#domain/notices.ts';
import { DEAD_LETTER_STATES } from '#domain/states.ts';

/**
 * The `data` of each operational webhook (the body is `{id, type, timestamp, data}` like every
 * webhook, signed the same way). One schema per event type: docs/operations.md lists them, the OpenAPI
 * document carries them under `webhooks`, and the notifier builds its payloads through these
 * types, so a field cannot be added without being documented. Absent values are null.
 */

const instant = z.string().meta({ format: 'date-time' });

const subscriptionRef = z.strictObject({
  id: z.string(),
  url: z.string(),
  tenantId: z.string().nullable(),
  description: z.string().nullable(),
});

const attemptRef = z
  .strictObject({
    deliveryId: z.string(),
    at: instant,
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'the HTTP status the endpoint answered, null when it did not answer' }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'why there was no usable answer (timeout, refused connection, TLS), null with a status' }),
  })
  .meta({ description: "a delivery's latest attempt" });

// The reconciliation item, without its cursor, and with null where the listing leaves a status out.
const eventRef = subscriptionEvent
  .omit({ cursor: true, lastStatus: true })
  .extend({ lastStatus: z.number().int().nullable() });

/** Every payload names its kind and its notice (stable across a re-send, like the webhook-id). */
const base = {
  noticeId: z
    .string()
    .meta({ description: 'the notice: `<subject>#<anchor>#<kind>`, once per streak (or state change, or replay)' }),
};

const streakBase = {
  ...base,
  subscription: subscriptionRef,
  failingSince: instant.meta({ description: 'the first failed attempt after the last 2xx' }),
  deadLettersUrl: z
    .string()
    .meta({ description: "the subscription's dead letters: the dashboard's page, or the API path" }),
};

export const failingEvent = z.strictObject({
  kind: z
    .enum(['failing', 'still_failing'])
    .meta({ description: '`failing`: the first notice (1 h by default); `still_failing`: the second (24 h)' }),
  ...streakBase,
  failingForSeconds: z.number().int(),
  recentAttempts: z.array(attemptRef).meta({ description: 'the newest failed attempts, newest first (at most 5)' }),
  retryingUntil: instant.nullable().meta({
    description: 'the retry deadline of the oldest delivery still being tried: the first event lost if nothing changes',
  }),
  recentEvents: z.array(eventRef).meta({ description: 'the newest events, newest first (at most 5)' }),
});

export const expiringEvent = z.strictObject({
  kind: z.literal('expiring'),
  ...streakBase,
  failingForSeconds: z.number().int(),
  expiresAt: instant.meta({
    description: 'when the oldest delivery still being tried reaches its retry deadline and is dead-lettered',
  }),
  oldestPending: z.strictObject({
    deliveryId: z.string(),
    eventId: z.string().nullable(),
    createdAt: instant.nullable(),
  }),
  recentAttempts: z.array(attemptRef),
  recentEvents: z.array(eventRef),
});

export const lostSummaryEvent = z.strictObject({
  kind: z.literal('lost'),
  ...streakBase,
  expired: z
    .number()
    .int()
    .meta({ description: 'deliveries dead-lettered past their retry deadline since failingSince' }),
  failed: z
    .number()
    .int()
    .meta({ description: 'deliveries dead-lettered by a permanent error (a 4xx) since failingSince' }),
  events: z
    .array(
      z.strictObject({
        eventId: z.string(),
        eventType: z.string().nullable(),
        deliveryId: z.string(),
        state: z.enum(DEAD_LETTER_STATES),
        deadLetteredAt: instant,
        lastStatus: z.number().int().nullable(),
        lastError: z.string().nullable(),
      }),
    )
    .meta({
      description:
        'the first dead letters of the streak, oldest first (at most 100; the rest are behind deadLettersUrl)',
    }),
  truncated: z.boolean().meta({
    description: 'more were lost than `events` lists, or than could be counted (the counts are then lower bounds)',
  }),
});

export const recoveredEvent = z.strictObject({
  kind: z.literal('recovered'),
  ...streakBase,
  recoveredAt: instant.meta({ description: 'the 2xx that ended the streak' }),
  failedForSeconds: z.number().int(),
  deliveryId: z.string().meta({ description: 'the delivery that got the 2xx' }),
});

export const autoPausedEvent = z.strictObject({
  kind: z.literal('auto_paused'),
  ...base,
  subscription: subscriptionRef,
  reason: z.string(),
  pausedAt: instant,
  deadLetteringSince: instant.nullable(),
  deadLetterStreak: z.number().int(),
});

export const disabledEvent = z.strictObject({
  kind: z.literal('disabled'),
  ...base,
  subscription: subscriptionRef,
  reason: z.string().meta({ description: 'why (the endpoint answered 410 Gone)' }),
  disabledAt: instant,
});

export const replayCompletedEvent = z.strictObject({
  kind: z.literal('replay_completed'),
  ...base,
  replay: z.strictObject({
    id: z.string(),
    operator: z.string(),
    criteria: replayCriteria,
    matched: z.number().int(),
    replayed: z.number().int(),
    skipped: z.number().int(),
    windowSeconds: z.number().int(),
    startedAt: instant,
    finishedAt: instant,
  }),
});

/** Each operational event type's `data` schema (both failing notices share `subscription.failing`). */
export const OPERATIONAL_EVENT_SCHEMAS = {
  [NOTICE_EVENT_TYPES.failing]: failingEvent,
  [NOTICE_EVENT_TYPES.expiring]: expiringEvent,
  [NOTICE_EVENT_TYPES.lost]: lostSummaryEvent,
  [NOTICE_EVENT_TYPES.recovered]: recoveredEvent,
  [NOTICE_EVENT_TYPES.auto_paused]: autoPausedEvent,
  [NOTICE_EVENT_TYPES.disabled]: disabledEvent,
  [NOTICE_EVENT_TYPES.replay_completed]: replayCompletedEvent,
} as const;

/** The OpenAPI component name of each schema. */
export const OPERATIONAL_EVENT_COMPONENTS = {
  SubscriptionFailingEvent: failingEvent,
  SubscriptionExpiringEvent: expiringEvent,
  SubscriptionLostSummaryEvent: lostSummaryEvent,
  SubscriptionRecoveredEvent: recoveredEvent,
  SubscriptionAutoPausedEvent: autoPausedEvent,
  SubscriptionDisabledEvent: disabledEvent,
  ReplayCompletedEvent: replayCompletedEvent,
} as const;

export type FailingEvent = z.output<typeof failingEvent>;
export type ExpiringEvent = z.output<typeof expiringEvent>;
export type LostSummaryEvent = z.output<typeof lostSummaryEvent>;
export type RecoveredEvent = z.output<typeof recoveredEvent>;
export type AutoPausedEvent = z.output<typeof autoPausedEvent>;
export type DisabledEvent = z.output<typeof disabledEvent>;
export type ReplayCompletedEvent = z.output<typeof replayCompletedEvent>;
export type OperationalEventData =
  | FailingEvent
  | ExpiringEvent
  | LostSummaryEvent
  | RecoveredEvent
  | AutoPausedEvent
  | DisabledEvent
  | ReplayCompletedEvent;
export type EventRef = z.output<typeof eventRef>;
export type AttemptRef = z.output<typeof attemptRef>;

/** The schema a kind's payload must satisfy. */
export function schemaOf(kind: NoticeKind): z.ZodType {
  return OPERATIONAL_EVENT_SCHEMAS[NOTICE_EVENT_TYPES[kind]];
}

import { z } from 'zod';
import { DELIVERY_STATES, REPLAYABLE_STATES } from '#domain/states.ts';
import type { SigningScheme } from '#domain/signing.ts';
import type { SubscriptionState } from '#domain/types.ts';
import { PORTAL_ACCESS_LEVELS } from '#domain/portal-session.ts';

/**
 * What every route answers, as zod schemas: the OpenAPI document's response components (via
 * z.toJSONSchema), the typed client's result types (z.infer) and what the integration tests
 * check each real answer against (test/support/api-client.ts). The views return these types
 * (`DeliveryView`, …), so a view that drifts from its schema does not type-check.
 *
 * Objects are strict: a field a view adds without documenting it fails the answer's check.
 * Absent values are null, never missing (the views' own rule).
 */

/**
 * The type a view returns for schema `S`: its output, read-only all the way down, so a view may
 * hand over the domain's readonly arrays as they are.
 */
export type View<S extends z.ZodType> = DeepReadonly<z.output<S>>;
type DeepReadonly<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

const instant = z.string().meta({ format: 'date-time' });
const nullableInstant = instant.nullable();

/** A page of a listing: `nextCursor` is null on the last page, else the `cursor` for the next one. */
export const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({ items: z.array(item), nextCursor: z.string().nullable() });

/** Every refusal: `{"error": {"code", "message"}}`; the message names the field first (`url: …`) when it is about one. */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'route_not_found',
  'method_not_allowed',
  'conflict',
  'idempotency_key_reused',
  'rate_limited',
  'unavailable',
  'payload_too_large',
  'internal_error',
] as const;
export const errorBody = z.strictObject({
  error: z.strictObject({ code: z.enum(ERROR_CODES), message: z.string().min(1) }),
});
export type ErrorBody = View<typeof errorBody>;

export const health = z.strictObject({ status: z.literal('ok') });

// ---------------------------------------------------------------------------------------------
// Subscriptions

export const SUBSCRIPTION_STATES = [
  'active',
  'paused',
  'disabled',
  'deleted',
] as const satisfies readonly SubscriptionState[];

/** `v1`: HMAC-SHA256 secrets; `v1a`: Ed25519 keys. */
const SIGNATURE_SCHEMES = ['v1', 'v1a'] as const satisfies readonly SigningScheme[];

export const retryPolicy = z.strictObject({
  initialDelaySeconds: z.number().int(),
  multiplier: z.number(),
  maxDelaySeconds: z.number().int(),
  jitter: z.number(),
  deadlineSeconds: z.number().int(),
  maxAttempts: z.number().int().optional(),
});

/** The deployment's delivery contract in figures (GET /v1/delivery-policy). */
export const deliveryPolicy = z.strictObject({
  retryPolicy: retryPolicy.meta({ description: "the default; a subscription's own `retryPolicy` overrides it" }),
  customerReplayLimit: z
    .strictObject({ limit: z.number().int(), windowSeconds: z.number().int() })
    .meta({ description: 'resends, Retry nows and test events a tenant may make per subscription and window' }),
  deadLetterRetentionDays: z.number().meta({ description: 'how long a dead letter stays to be seen and replayed' }),
});
export type DeliveryPolicyView = View<typeof deliveryPolicy>;

export const subscription = z.strictObject({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  tenantId: z.string().nullable(),
  description: z.string().nullable(),
  retryPolicy: retryPolicy.nullable(),
  metadata: z.record(z.string(), z.string()),
  headers: z.record(z.string(), z.string()),
  rateLimitPerSecond: z.number().int().nullable(),
  contactEmails: z.array(z.string()).meta({ description: 'who failure notices go to, besides the support address' }),
  signatureScheme: z.enum(SIGNATURE_SCHEMES),
  publicKey: z.string().nullable(),
  state: z.enum(SUBSCRIPTION_STATES),
  stateReason: z.string().nullable(),
  stateChangedAt: instant,
  deadLetteringSince: nullableInstant,
  deadLetterStreak: z.number().int(),
  createdAt: instant,
  updatedAt: instant,
});
export type SubscriptionView = View<typeof subscription>;

/** The creation answer: the one time a `v1` subscription's signing secret is shown. */
export const createdSubscription = subscription.extend({
  secret: z.string().optional().meta({ description: 'whsec_…: shown once, here (v1 subscriptions)' }),
});

/** The resume answer: how many waiting deliveries were made due again. */
export const resumedSubscription = subscription.extend({ drained: z.number().int() });

/** The delete answer: state `deleted`, and how many waiting deliveries were dead-lettered with it. */
export const deletedSubscription = subscription.extend({ deadLettered: z.number().int() });

/** The secrets signing now, newest first: the secret (v1) or the public key (v1a), and when each stops signing. */
export const subscriptionSecrets = z.strictObject({
  signatureScheme: z.enum(SIGNATURE_SCHEMES),
  secrets: z.array(
    z.strictObject({
      secret: z.string().optional(),
      publicKey: z.string().optional(),
      expiresAt: nullableInstant.meta({ description: 'when it stops signing; null for the newest' }),
    }),
  ),
});

/** A rotation's answer: the secrets signing now, and the new one (v1) or its public key (v1a). */
export const rotatedSecret = subscriptionSecrets.extend({
  secret: z.string().optional(),
  publicKey: z.string().optional(),
});

/** A test event's answer: the event published to this subscription alone, and its delivery. */
export const testEvent = z.strictObject({ eventId: z.string(), deliveryId: z.string() });

export const subscriptionStats = z.strictObject({
  subscriptionId: z.string(),
  window: z.strictObject({ hours: z.number().int(), from: instant, to: instant }),
  state: z.enum(SUBSCRIPTION_STATES),
  stateReason: z.string().nullable(),
  stateChangedAt: instant,
  finished: z.strictObject({
    delivered: z.number().int(),
    failed: z.number().int(),
    expired: z.number().int(),
    total: z.number().int(),
  }),
  open: z.strictObject({ pending: z.number().int(), inFlight: z.number().int() }),
  successRate: z.number().nullable(),
  latencyMs: z.strictObject({ attempts: z.number().int(), average: z.number().nullable(), p95: z.number().nullable() }),
  lastFailure: z
    .strictObject({
      at: instant,
      deliveryId: z.string(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
  failingSince: nullableInstant,
  deadLetteringSince: nullableInstant,
  deadLetterStreak: z.number().int(),
  slowLaneUntil: nullableInstant.meta({
    description:
      'while the endpoint is marked slow (an attempt answered after the slow-lane threshold), when the mark ends: its deliveries go through the slow lane until then; null otherwise',
  }),
  series: z
    .strictObject({
      bucketMinutes: z.number().int().meta({ description: 'the length of each bucket (the oldest may be shorter)' }),
      buckets: z.array(
        z.strictObject({
          from: instant,
          to: instant.meta({ description: 'exclusive, except for the newest bucket, which ends with the window' }),
          attempts: z.number().int().meta({ description: 'attempts started in the bucket' }),
          succeeded: z.number().int(),
          failed: z.number().int(),
          successRate: z
            .number()
            .nullable()
            .meta({ description: 'succeeded ÷ attempts, 4 decimals; null with no attempt in the bucket' }),
          latencyMs: z.strictObject({ p50: z.number().nullable(), p95: z.number().nullable() }),
          deadLettered: z
            .number()
            .int()
            .meta({ description: 'deliveries that became dead letters (failed or expired) in the bucket' }),
          sampled: z.boolean().meta({
            description:
              'older than the newest `limits.deliveries` deliveries: drawn from a sample of those created in the bucket (up to `limits.deliveries` ÷ the bucket count)',
          }),
        }),
      ),
    })
    .meta({
      description:
        'the same reads in equal buckets over the window, oldest first (24 h: 24 of an hour; 7 d: 28 of six hours); `sampled` applies to it too',
    }),
  sampled: z.boolean(),
  examined: z.number().int(),
  attemptsExamined: z.number().int(),
  limits: z.strictObject({ deliveries: z.number().int(), attemptsPerDelivery: z.number().int() }),
});
export type SubscriptionStatsView = View<typeof subscriptionStats>;

// ---------------------------------------------------------------------------------------------
// Deliveries

export const delivery = z.strictObject({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string().nullable().meta({
    description: "the event's type; null only for a delivery recorded by an earlier version whose event is gone",
  }),
  subscriptionId: z.string(),
  url: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  nextAttemptAt: nullableInstant.meta({
    description: 'when a waiting (pending) delivery is next attempted; null otherwise',
  }),
  giveUpAt: instant,
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastResponse: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
});
export type DeliveryView = View<typeof delivery>;

export const attempt = z.strictObject({
  attempt: z.number().int().meta({ description: 'within the current run: restarts at 1 after a replay' }),
  seq: z.number().int().meta({ description: 'over the delivery’s whole life: never restarts' }),
  startedAt: instant,
  durationMs: z.number(),
  status: z.number().int().nullable(),
  responseSnippet: z.string().nullable(),
  error: z.string().nullable(),
});
export type AttemptView = View<typeof attempt>;

export const deliveryDetail = delivery.extend({
  body: z.string().nullable().meta({ description: 'the exact bytes sent; null when the event record is gone' }),
  headers: z.record(z.string(), z.string()),
  attemptLog: z.array(attempt).meta({ description: 'the latest 50 attempts, oldest first' }),
  attemptLogNextCursor: z
    .string()
    .nullable()
    .meta({ description: 'the cursor for GET /v1/deliveries/{deliveryId}/attempts: earlier attempts' }),
});
export type DeliveryDetailView = View<typeof deliveryDetail>;

// ---------------------------------------------------------------------------------------------
// Publishing

/** What the event-type catalog says of an event it accepted (HOOKLINE_EVENT_TYPE_CHECK `warn`, or a deprecated type under `refuse`). */
const publishWarnings = z
  .array(
    z.strictObject({
      field: z.enum(['type', 'payload']),
      message: z.string().meta({
        description:
          'e.g. "type order.shipped is not registered in the event-type catalog", "payload does not match the schema of order.created: /amount must be number"',
      }),
    }),
  )
  .optional()
  .meta({
    description: 'present only when the event-type catalog has something to say about the event; it was accepted',
  });

export const published = z.strictObject({
  eventId: z.string(),
  deliveryIds: z.array(z.string()),
  warnings: publishWarnings,
});
export const publishedBatch = z.strictObject({
  items: z.array(
    z.strictObject({
      eventId: z.string(),
      kind: z.enum(['accepted', 'duplicate', 'conflict']).meta({
        description:
          'accepted: published now; duplicate: published before, nothing new sent; conflict: the id names another event, nothing stored',
      }),
      deliveryIds: z.array(z.string()),
      error: z
        .strictObject({ code: z.enum(ERROR_CODES), message: z.string() })
        .optional()
        .meta({ description: 'why a conflict was not stored' }),
      warnings: publishWarnings,
    }),
  ),
});

/** One delivery of an event, as the event's detail lists it. */
const eventDelivery = z.strictObject({
  subscriptionId: z.string(),
  deliveryId: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  lastStatus: z.number().int().optional(),
});

/** `GET /v1/events/{eventId}`: the event, its payload (the `data` every attempt sent) and its delivery per subscription. */
export const eventDetail = z.strictObject({
  id: z.string(),
  type: z.string(),
  createdAt: instant,
  tenantId: z.string().optional().meta({
    description:
      'the tenant it was published for; absent: for subscriptions without a tenant (or, with `audience`, for every tenant)',
  }),
  audience: z.literal('all').optional().meta({ description: 'present when it was published to every tenant at once' }),
  narrowedTo: z
    .array(z.string())
    .optional()
    .meta({ description: 'the subscriptionIds the publish named, when it named some' }),
  payload: z.unknown().meta({ description: 'the published payload, as JSON' }),
  deliveries: z.array(eventDelivery),
});

/** An item of `GET /v1/events`, newest first. */
export const eventSummary = z.strictObject({
  id: z.string(),
  type: z.string(),
  createdAt: instant,
  tenantId: z.string().optional().meta({ description: 'the tenant it was published for' }),
  audience: z.literal('all').optional().meta({ description: 'present when it was published to every tenant at once' }),
  deliveries: z.number().int().meta({ description: 'how many deliveries it fanned out to' }),
});

/** A registered event type (`GET /v1/event-types`, `PUT /v1/event-types/{name}`, …). */
export const eventType = z.strictObject({
  name: z.string(),
  description: z.string(),
  schema: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'the JSON Schema its payloads are checked against (draft 2020-12, or draft-07); null: none' }),
  example: z.unknown().meta({ description: 'an example payload (any JSON value); null: none' }),
  deprecated: z.boolean(),
  createdAt: instant,
  updatedAt: instant,
});
export type EventTypeView = View<typeof eventType>;

/** An item of `GET /v1/subscriptions/{subscriptionId}/events`: `cursor` continues the walk after it. */
export const subscriptionEvent = z.strictObject({
  eventId: z.string(),
  eventType: z.string().nullable(),
  createdAt: instant,
  deliveryId: z.string(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number().int(),
  lastStatus: z.number().int().optional(),
  cursor: z.string(),
});

// ---------------------------------------------------------------------------------------------
// Bulk replays

/** What a bulk replay selects: shown in its record and in the replay.completed operational event. */
export const replayCriteria = z.strictObject({
  states: z.array(z.enum(REPLAYABLE_STATES)),
  subscriptionId: z.string().nullable(),
  tenantId: z.string().nullable(),
  createdFrom: instant,
  createdTo: instant,
});

export const replay = z.strictObject({
  id: z.string(),
  operator: z.string(),
  principal: z.string(),
  criteria: replayCriteria,
  dryRun: z.boolean(),
  windowSeconds: z.number().int(),
  status: z.enum(['running', 'completed']),
  matched: z.number().int(),
  replayed: z.number().int(),
  skipped: z.number().int(),
  sample: z
    .array(z.string())
    .nullable()
    .meta({ description: "a dry run's first few matching delivery ids; null for a real replay" }),
  startedAt: instant,
  updatedAt: instant,
  finishedAt: nullableInstant,
});
export type ReplayView = View<typeof replay>;

// ---------------------------------------------------------------------------------------------
// Tenant keys

export const tenantKey = z.strictObject({
  keyId: z.string(),
  tenantId: z.string(),
  createdAt: instant,
  expiresAt: nullableInstant,
  revokedAt: nullableInstant,
});
export type TenantKeyView = View<typeof tenantKey>;

export const mintedKey = tenantKey.extend({
  key: z.string().meta({ description: 'hk_tenant_…: shown once, never stored' }),
});

// ---------------------------------------------------------------------------------------------
// Customer portal sessions (lambdas/app/portal/)

export const portalSession = z.strictObject({
  id: z.string().meta({ description: 'psn_…: the handle to revoke it by' }),
  tenantId: z.string(),
  subscriptionId: z
    .string()
    .nullable()
    .meta({ description: 'the one subscription the session sees; null: every subscription of the tenant' }),
  access: z.enum(PORTAL_ACCESS_LEVELS).meta({
    description:
      'what the session may do: view (read, resend, retry now, pause, resume, test) or manage (also create, change, delete, rotate)',
  }),
  createdAt: instant,
  expiresAt: instant.meta({ description: 'when the link, and the session opened with it, stop working' }),
  exchangedAt: nullableInstant.meta({ description: 'when the link was opened (it works once)' }),
  revokedAt: nullableInstant,
});
export type PortalSessionView = View<typeof portalSession>;

export const mintedPortalSession = portalSession.extend({
  url: z.string().meta({
    description:
      'the link to hand to the customer: the dashboard, with a one-time code in the fragment (#portal=…), which browsers never send to a server; shown once',
  }),
});

export const portalSessionToken = z.strictObject({
  token: z.string().meta({
    description: 'hk_portal_…: send it as Authorization: Bearer; it ends at expiresAt or when the session is revoked',
  }),
  tokenType: z.literal('Bearer'),
  sessionId: z.string(),
  tenantId: z.string(),
  subscriptionId: z.string().nullable(),
  access: z.enum(PORTAL_ACCESS_LEVELS),
  expiresAt: instant,
});

/** A file of the web dashboard (HTML, JavaScript or CSS), as text. */
export const dashboardFile = z.string();

// ---------------------------------------------------------------------------------------------
// Archive runs, restores and caught notice emails (the operator console)

/** What one archive slice did (app/archive/archival.ts ArchiveReport). */
export const archiveReport = z.strictObject({
  kind: z.enum(['done', 'partial', 'busy']).meta({
    description:
      'done: nothing archivable is left; partial: stopped at maxObjects or the time budget, run again; busy: another run holds the lock',
  }),
  objects: z.number().int(),
  archived: z.number().int(),
  kept: z.number().int(),
  dropped: z.number().int(),
  resumed: z.number().int(),
  subscriptions: z.number().int(),
});

/** What a restore brought back (app/archive/archival.ts RestoreReport). */
export const restoreReport = z.strictObject({
  days: z.number().int(),
  objects: z.number().int(),
  records: z.number().int(),
  restored: z.number().int(),
  present: z.number().int(),
  until: z.string().meta({ description: 'restored rows stay until this time' }),
});

export const caughtMail = z.strictObject({
  id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  text: z.string(),
  receivedAt: z.string(),
});

/** The local mail catcher's messages, newest first; `kept` false (and no items) where mail is not kept (AWS, or an SMTP server). */
export const caughtMailList = z.strictObject({
  kept: z.boolean(),
  note: z.string().optional(),
  items: z.array(caughtMail),
});

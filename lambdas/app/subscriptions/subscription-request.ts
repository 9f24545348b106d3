import { z } from 'zod';
import { checkCustomHeaders } from '#domain/custom-headers.ts';
import { InvalidHeaderError, InvalidRetryPolicyError, InvalidSecretError } from '#domain/errors.ts';
import { EVENT_TYPE_PATTERN, TEST_EVENT_TYPE } from '#domain/event-types.ts';
import { isEmailAddress, MAX_CONTACT_EMAILS } from '#domain/notices.ts';
import { resolveRetryPolicy, type RetryPolicy } from '#domain/retry-policy.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '#domain/subscription-states.ts';
import { checkSecret, type SigningScheme } from '#domain/signing.ts';
import type { PageRequest } from '#ports/page.ts';
import type { SubscriptionChange } from '#ports/subscription-store.ts';
import { ValidationError } from '#app/errors.ts';
import { parseBody, parseObjectSource, parseOptionalBody, parseQuery, type Query } from '#app/parse.ts';
import { eventType, fields, pageQuery, rule, tenantId } from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';

/** The fields of a subscription body, each with the rule its refusal states. */
export const SUBSCRIPTION_FIELDS = {
  url: z
    .string({ error: 'a non-empty string is required' })
    .min(1, { error: 'a non-empty string is required' })
    .max(2048, { error: 'must be at most 2048 characters' }),
  eventTypes: z
    .array(z.unknown(), { error: 'must be an array of 1 to 100 event types' })
    .min(1, { error: 'must be an array of 1 to 100 event types' })
    .max(100, { error: 'must be an array of 1 to 100 event types' })
    // Each entry is refused on the list itself, as the field a caller fixes.
    .superRefine((types, ctx) => {
      const bad = types.find((t) => typeof t !== 'string' || t.length > 256 || !EVENT_TYPE_PATTERN.test(t));
      if (bad !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `'${String(bad).slice(0, 40)}' is not an event type or pattern ('*', 'a.b', 'a.*')`,
        });
    })
    .transform((types) => [...new Set(types as string[])]),
  tenantId,
  description: z
    .string({ error: 'must be a string of at most 1000 characters' })
    .max(1000, { error: 'must be a string of at most 1000 characters' }),
  // Checked by the domain's one copy of the rule (resolveRetryPolicy) once the shape is known.
  retryPolicy: z.unknown(),
  metadata: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, { error: 'keys are 1 to 64 letters, digits, or . _ : -' }),
      z
        .string({ error: 'values are strings of at most 512 characters' })
        .max(512, { error: 'values are strings of at most 512 characters' }),
      { error: 'must be an object of string values' },
    )
    .refine((m) => Object.keys(m).length <= 20, { error: 'at most 20 keys' }),
  // Names and values are checked by the domain's one copy of the rule (checkCustomHeaders).
  headers: z.record(z.string(), z.string({ error: 'values must be strings' }), {
    error: 'must be an object of header names to string values',
  }),
  rateLimitPerSecond: z
    .number({ error: 'must be a whole number from 1 to 10000' })
    .int({ error: 'must be a whole number from 1 to 10000' })
    .min(1, { error: 'must be a whole number from 1 to 10000' })
    .max(10_000, { error: 'must be a whole number from 1 to 10000' }),
  signatureScheme: z.enum(['v1', 'v1a'], { error: "must be 'v1' (HMAC-SHA256, the default) or 'v1a' (Ed25519)" }),
  // Who failure notices go to (domain/notices.ts); each address once (compared without case), as first written.
  contactEmails: z
    .array(z.unknown(), { error: `must be a list of at most ${MAX_CONTACT_EMAILS} email addresses` })
    .max(MAX_CONTACT_EMAILS, { error: `must be a list of at most ${MAX_CONTACT_EMAILS} email addresses` })
    .superRefine((list, ctx) => {
      const bad = list.find((a) => typeof a !== 'string' || !isEmailAddress(a));
      if (bad !== undefined)
        ctx.addIssue({ code: 'custom', message: `'${String(bad).slice(0, 60)}' is not an email address` });
    })
    .transform((list) =>
      (list as string[]).filter((a, i, all) => all.findIndex((b) => b.toLowerCase() === a.toLowerCase()) === i),
    ),
} as const;

const F = SUBSCRIPTION_FIELDS;

export const CREATE_SUBSCRIPTION_SCHEMA = z.object({
  url: F.url,
  eventTypes: F.eventTypes.optional(),
  tenantId: F.tenantId.optional(),
  description: F.description.optional(),
  retryPolicy: F.retryPolicy.optional(),
  metadata: F.metadata.optional(),
  headers: F.headers.optional(),
  rateLimitPerSecond: F.rateLimitPerSecond.optional(),
  signatureScheme: F.signatureScheme.optional(),
  contactEmails: F.contactEmails.optional(),
});

/** Every field may change; `null` removes an optional one (back to the default). */
export const UPDATE_SUBSCRIPTION_SCHEMA = z.object({
  url: F.url.optional(),
  eventTypes: F.eventTypes.optional(),
  description: F.description.nullable().optional(),
  retryPolicy: F.retryPolicy.optional(),
  metadata: F.metadata.nullable().optional(),
  headers: F.headers.nullable().optional(),
  rateLimitPerSecond: F.rateLimitPerSecond.nullable().optional(),
  contactEmails: F.contactEmails.nullable().optional(),
});

export const ROTATE_SECRET_SCHEMA = z.object({
  secret: z
    .string({ error: 'must be a whsec_ secret (or a whsk_ key for a v1a subscription)' })
    .max(256, { error: 'must be at most 256 characters' })
    .optional(),
  overlapSeconds: z
    .number({ error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .int({ error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .min(0, { error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .max(MAX_ROTATION_OVERLAP_SECONDS, {
      error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`,
    })
    .optional(),
});

/** The optional `POST /v1/subscriptions/{id}/test` body: which type to send, with which example payload. */
export const TEST_EVENT_SCHEMA = fields({
  type: eventType
    .optional()
    .describe(
      `the event type to send: ${TEST_EVENT_TYPE} (the default, which every subscription receives), or one this subscription's eventTypes select; never another hookline.… type`,
    ),
  payload: z
    .custom<unknown>((value) => value !== undefined, rule('must be a JSON value'))
    .optional()
    .meta({
      description:
        "an example payload, any JSON value, sent as the webhook body's `data` exactly as written; default a short message naming the subscription",
    }),
});

export const PAUSE_SCHEMA = z.object({
  reason: z
    .string({ error: 'must be a string of 1 to 500 characters' })
    .min(1, { error: 'must be a string of 1 to 500 characters' })
    .max(500, { error: 'must be a string of 1 to 500 characters' })
    .optional(),
});

/** A new subscription as the caller asked for it, checked field by field (the URL's target rules apply when it is created). */
export interface CreateSubscriptionRequest {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly tenantId?: string;
  readonly description?: string;
  readonly retryPolicy?: RetryPolicy;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly rateLimitPerSecond?: number;
  /** Absent: `v1` (HMAC-SHA256). */
  readonly signatureScheme?: SigningScheme;
  /** Who failure notices go to, besides the deployment's support address. */
  readonly contactEmails?: readonly string[];
}

/** The domain's refusals of one input, as a refusal of the request's field. */
function asRefusal<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidRetryPolicyError || error instanceof InvalidHeaderError)
      throw ValidationError.from(error);
    throw error;
  }
}

/** `POST /v1/subscriptions`; a ValidationError names the first field to fix. */
export function parseCreateSubscription(
  raw: string | null | undefined,
  defaultPolicy: RetryPolicy,
): CreateSubscriptionRequest {
  const body = parseBody(raw, CREATE_SUBSCRIPTION_SCHEMA, 64 * 1024);
  return {
    url: body.url,
    eventTypes: body.eventTypes ?? ['*'],
    ...(body.signatureScheme !== undefined ? { signatureScheme: body.signatureScheme } : {}),
    ...(body.tenantId !== undefined ? { tenantId: body.tenantId } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.retryPolicy !== undefined
      ? { retryPolicy: asRefusal(() => resolveRetryPolicy(body.retryPolicy, defaultPolicy)) }
      : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.headers !== undefined ? { headers: asRefusal(() => checkCustomHeaders(body.headers!)) } : {}),
    ...(body.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: body.rateLimitPerSecond } : {}),
    ...(body.contactEmails !== undefined ? { contactEmails: body.contactEmails } : {}),
  };
}

/** `PATCH /v1/subscriptions/{id}`: at least one field; the URL's target rules apply in the service. */
export function parseUpdateSubscription(
  raw: string | null | undefined,
  defaultPolicy: RetryPolicy,
): SubscriptionChange {
  const body = parseBody(raw, UPDATE_SUBSCRIPTION_SCHEMA, 64 * 1024);
  if (Object.keys(body).length === 0)
    throw new ValidationError(
      'body',
      `name at least one field to change (${Object.keys(UPDATE_SUBSCRIPTION_SCHEMA.shape).join(', ')})`,
    );
  const { retryPolicy, headers, ...rest } = body;
  return {
    ...rest,
    ...(retryPolicy === null
      ? { retryPolicy: null }
      : retryPolicy !== undefined
        ? { retryPolicy: asRefusal(() => resolveRetryPolicy(retryPolicy, defaultPolicy)) }
        : {}),
    ...(headers === null
      ? { headers: null }
      : headers !== undefined
        ? { headers: asRefusal(() => checkCustomHeaders(headers)) }
        : {}),
  };
}

/** What a rotation asks for: the caller's own secret (checked against the scheme in the service) and the overlap. */
export interface RotateSecretRequest {
  readonly secret?: string;
  readonly overlapSeconds: number;
}

/** `POST /v1/subscriptions/{id}/rotate-secret`: an optional body. */
export function parseRotateSecret(raw: string | null | undefined): RotateSecretRequest {
  const body = parseOptionalBody(raw, ROTATE_SECRET_SCHEMA, 4096);
  return {
    overlapSeconds: body.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS,
    ...(body.secret !== undefined ? { secret: body.secret } : {}),
  };
}

/** A secret a caller brings, checked against the subscription's scheme; the refusal names `secret`. */
export function checkBroughtSecret(secret: string, scheme: SigningScheme): string {
  try {
    return checkSecret(secret, scheme);
  } catch (error) {
    if (error instanceof InvalidSecretError) throw new ValidationError('secret', error.message, { cause: error });
    throw error;
  }
}

/** A test event as asked for: its type and, when given, the payload's JSON text as written (sent byte for byte, like a publish's). */
export interface TestEventRequest {
  readonly type: string;
  readonly payloadJson?: string;
}

/** `POST /v1/subscriptions/{id}/test`: an optional `{type?, payload?}` body; whether the subscription may get that type is the service's to say. */
export function parseTestEvent(raw: string | null | undefined): TestEventRequest {
  if (raw === null || raw === undefined || raw.trim() === '') return { type: TEST_EVENT_TYPE };
  const { fields: body, sourceOf } = parseObjectSource(raw, Object.keys(TEST_EVENT_SCHEMA.shape));
  const { type } = parseWith(TEST_EVENT_SCHEMA, body);
  const payloadJson = sourceOf('payload');
  return { type: type ?? TEST_EVENT_TYPE, ...(payloadJson !== undefined ? { payloadJson } : {}) };
}

/** An optional `{reason}` body on pause. */
export function parsePauseBody(raw: string | null | undefined): { reason?: string } {
  const body = parseOptionalBody(raw, PAUSE_SCHEMA, 4096);
  return body.reason === undefined ? {} : { reason: body.reason };
}

/** A page of subscriptions, optionally of one tenant (a tenant key is limited to its own whatever it asks). */
export interface SubscriptionListQuery extends PageRequest {
  readonly tenantId?: string;
  /** Only those failing now (domain/failing-now.ts). */
  readonly failing?: boolean;
}

/**
 * How many subscriptions one `failing=true` page may read before it answers with what it found
 * and a cursor: a bound on one request's time and read units however few are failing.
 */
export const FAILING_SCAN_ROWS = 1000;

export const SUBSCRIPTION_LIST_QUERY = pageQuery.extend({
  tenantId: tenantId.optional(),
  failing: z
    .enum(['true', 'false'], rule('must be true or false'))
    .optional()
    .meta({
      description: `true: only the subscriptions failing now (in a dead-letter streak, whatever their state but deleted), from at most ${FAILING_SCAN_ROWS} read a request, so a page may hold fewer than limit, even none, and still have a nextCursor`,
    }),
});

/** The `GET /v1/subscriptions` query: `limit`, `cursor`, `tenantId`, `failing`. */
export function parseSubscriptionListQuery(query: Query): SubscriptionListQuery {
  const { limit, cursor, tenantId: tenant, failing } = parseQuery(SUBSCRIPTION_LIST_QUERY, query);
  return {
    limit,
    ...(cursor ? { cursor } : {}),
    ...(tenant !== undefined ? { tenantId: tenant } : {}),
    ...(failing === 'true' ? { failing: true } : {}),
  };
}

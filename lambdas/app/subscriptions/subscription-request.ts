import { InvalidRetryPolicyError } from '#domain/errors.ts';
import { EVENT_TYPE_PATTERN } from '#domain/event-types.ts';
import { resolveRetryPolicy, type RetryPolicy } from '#domain/retry-policy.ts';
import type { PageRequest } from '#ports/page.ts';
import { ValidationError } from '#app/errors.ts';
import { TENANT_PATTERN, optionalString, parseObject, parsePageRequest, parseTenantId, type Query } from '#app/parse.ts';

/** A new subscription as the caller asked for it, checked field by field (the URL's target rules apply when it is created). */
export interface CreateSubscriptionRequest {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly tenantId?: string;
  readonly description?: string;
  readonly retryPolicy?: RetryPolicy;
}

/** The `POST /v1/subscriptions` body; a ValidationError names the first field to fix. */
export function parseCreateSubscription(raw: string | null | undefined, defaultPolicy: RetryPolicy): CreateSubscriptionRequest {
  const body = parseObject(raw, ['url', 'eventTypes', 'tenantId', 'description', 'retryPolicy'], 64 * 1024);
  if (typeof body.url !== 'string' || body.url.length === 0) throw new ValidationError('url', 'a non-empty string is required');
  let eventTypes: string[] = ['*'];
  if (body.eventTypes !== undefined) {
    const types = body.eventTypes;
    if (!Array.isArray(types) || types.length === 0 || types.length > 100) {
      throw new ValidationError('eventTypes', 'must be an array of 1 to 100 event types');
    }
    for (const t of types) {
      if (typeof t !== 'string' || t.length > 256 || !EVENT_TYPE_PATTERN.test(t)) {
        throw new ValidationError('eventTypes', `'${String(t).slice(0, 40)}' is not an event type or pattern ('*', 'a.b', 'a.*')`);
      }
    }
    eventTypes = [...new Set(types as string[])];
  }
  const tenantId = optionalString(body, 'tenantId', TENANT_PATTERN, 'must be 1 to 128 letters, digits, or . _ : -');
  if (body.description !== undefined && (typeof body.description !== 'string' || body.description.length > 1000)) {
    throw new ValidationError('description', 'must be a string of at most 1000 characters');
  }
  let retryPolicy: RetryPolicy | undefined;
  if (body.retryPolicy !== undefined) {
    try {
      retryPolicy = resolveRetryPolicy(body.retryPolicy, defaultPolicy);
    } catch (error) {
      // A parser refuses with ValidationError; the domain error's own parts name the field and the rule.
      if (error instanceof InvalidRetryPolicyError) throw ValidationError.from(error);
      throw error;
    }
  }
  return {
    url: body.url,
    eventTypes,
    ...(tenantId ? { tenantId } : {}),
    ...(typeof body.description === 'string' ? { description: body.description } : {}),
    ...(retryPolicy ? { retryPolicy } : {}),
  };
}

/** An optional `{reason}` body on pause. */
export function parsePauseBody(raw: string | null | undefined): { reason?: string } {
  if (raw === null || raw === undefined || raw.trim() === '') return {};
  const body = parseObject(raw, ['reason'], 4096);
  if (body.reason === undefined) return {};
  if (typeof body.reason !== 'string' || body.reason.length === 0 || body.reason.length > 500) {
    throw new ValidationError('reason', 'must be a string of 1 to 500 characters');
  }
  return { reason: body.reason };
}

/** A page of subscriptions, optionally of one tenant (a tenant key is limited to its own whatever it asks). */
export interface SubscriptionListQuery extends PageRequest {
  readonly tenantId?: string;
}

/** The `GET /v1/subscriptions` query: `limit`, `cursor`, `tenantId`. */
export function parseSubscriptionListQuery(query: Query): SubscriptionListQuery {
  return { ...parsePageRequest(query), ...(query.tenantId !== undefined ? { tenantId: parseTenantId(query.tenantId) } : {}) };
}

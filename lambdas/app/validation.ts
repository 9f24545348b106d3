import { InvalidRetryPolicyError } from '#domain/errors.ts';
import { EVENT_TYPE_PATTERN } from '#domain/event-types.ts';
import { resolveRetryPolicy, type RetryPolicy } from '#domain/retry-policy.ts';
import { isDeliveryState, type DeliveryState } from '#domain/states.ts';
import { ValidationError } from './errors.ts';

export const MAX_EVENT_BYTES = 256 * 1024;
const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
const TENANT_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const TYPE_PATTERN = /^[A-Za-z0-9_.:-]{1,256}$/;

type Json = Record<string, unknown>;

/** Parses a request body that must be one JSON object with only `allowed` fields. */
export function parseObject(raw: string | null | undefined, allowed: readonly string[], maxBytes = MAX_EVENT_BYTES): Json {
  if (raw === null || raw === undefined || raw.trim() === '') throw new ValidationError('body', 'a JSON object is required');
  if (Buffer.byteLength(raw, 'utf8') > maxBytes) throw new ValidationError('body', `must be at most ${maxBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ValidationError('body', 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError('body', 'must be a JSON object');
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new ValidationError(unknown[0]!, `is not a known field (allowed: ${allowed.join(', ')})`);
  return value as Json;
}

function optionalString(body: Json, field: string, pattern: RegExp, rule: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw new ValidationError(field, rule);
  return value;
}

export interface PublishRequest {
  readonly id?: string;
  readonly type: string;
  readonly payload: unknown;
}

export function parsePublishRequest(raw: string | null | undefined): PublishRequest {
  const body = parseObject(raw, ['id', 'type', 'payload']);
  const id = optionalString(body, 'id', ID_PATTERN, 'must be 1 to 128 visible ASCII characters');
  if (typeof body.type !== 'string' || body.type.length === 0) throw new ValidationError('type', 'a non-empty string is required');
  if (!TYPE_PATTERN.test(body.type)) throw new ValidationError('type', 'must be at most 256 letters, digits, or . _ : -');
  if (!('payload' in body)) throw new ValidationError('payload', 'is required (any JSON value)');
  return { ...(id ? { id } : {}), type: body.type, payload: body.payload };
}

export interface CreateSubscriptionRequest {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly tenantId?: string;
  readonly description?: string;
  readonly retryPolicy?: RetryPolicy;
}

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
      if (error instanceof InvalidRetryPolicyError) throw new ValidationError(`retryPolicy${error.field ? `.${error.field}` : ''}`, error.message.replace(/^retryPolicy(\.\S*)?\s/, ''));
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

export function parseLimit(value: string | undefined, fallback = 50): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) throw new ValidationError('limit', 'must be a whole number from 1 to 100');
  return n;
}

export function parseState(value: string | undefined): DeliveryState | undefined {
  if (value === undefined) return undefined;
  if (!isDeliveryState(value)) throw new ValidationError('state', 'must be one of pending, in_flight, delivered, failed, expired');
  return value;
}

export function parseId(value: string | undefined, prefix: string, field: string): string {
  if (!value || !new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`).test(value)) throw new ValidationError(field, `must be an id starting with ${prefix}_`);
  return value;
}

import { DELIVERY_STATES, isDeliveryState, type DeliveryState } from '#domain/states.ts';
import type { PageRequest } from '#ports/page.ts';
import { ValidationError } from '#app/errors.ts';

/** Request parsers shared by every capability: each names the field it refuses, and nothing is stored. */

export const MAX_EVENT_BYTES = 256 * 1024;
export const TENANT_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export type Json = Record<string, unknown>;

/** A request's query string as the handlers pass it on: each parameter once, absent when not given. */
export type Query = Readonly<Record<string, string | undefined>>;

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
  rejectUnknownFields(value as Json, allowed);
  return value as Json;
}

/** Refuses a field not in `allowed`, naming the first one. */
export function rejectUnknownFields(body: Json, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new ValidationError(unknown[0]!, `is not a known field (allowed: ${allowed.join(', ')})`);
}

/** An optional string field that must match `pattern`; `rule` says what it must be. */
export function optionalString(body: Json, field: string, pattern: RegExp, rule: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw new ValidationError(field, rule);
  return value;
}

/** An optional boolean field, false when absent. */
export function optionalBoolean(body: Json, field: string): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true or false');
  return value;
}

/** A page size from the query string: a whole number from 1 to 100. */
export function parseLimit(value: string | undefined, fallback = 50): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) throw new ValidationError('limit', 'must be a whole number from 1 to 100');
  return n;
}

/** `limit` (1 to 100, default 50) and the opaque `cursor` of a listing; the store refuses a cursor it did not issue. */
export function parsePageRequest(query: Query): PageRequest {
  return { limit: parseLimit(query.limit), ...(query.cursor ? { cursor: query.cursor } : {}) };
}

/** An optional delivery-state filter. */
export function parseState(value: string | undefined): DeliveryState | undefined {
  if (value === undefined) return undefined;
  if (!isDeliveryState(value)) throw new ValidationError('state', `must be one of ${DELIVERY_STATES.join(', ')}`);
  return value;
}

/** An id with its type prefix (`sub_`, `dlv_`, `rpl_`). */
export function parseId(value: string | undefined, prefix: string, field: string): string {
  if (!value || !new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`).test(value)) throw new ValidationError(field, `must be an id starting with ${prefix}_`);
  return value;
}

/** A tenant id: 1 to 128 letters, digits, or . _ : - */
export function parseTenantId(value: unknown, field = 'tenantId'): string {
  if (typeof value !== 'string' || !TENANT_PATTERN.test(value)) throw new ValidationError(field, 'must be 1 to 128 letters, digits, or . _ : -');
  return value;
}

/**
 * A point in time for a range bound: an ISO 8601 instant with a zone, or a bare day, which
 * means the start of that day for `from` and its last millisecond for `to`.
 */
export function parseInstant(value: unknown, field: string, end: 'from' | 'to'): string {
  if (typeof value !== 'string') throw new ValidationError(field, 'is required: an ISO 8601 time (2024-05-01T00:00:00Z) or a day (2024-05-01)');
  const text = DAY.test(value) ? `${value}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : value;
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(field, `'${value.slice(0, 40)}' is not an ISO 8601 time with a zone (2024-05-01T00:00:00Z) or a day (2024-05-01)`);
  return new Date(ms).toISOString();
}

/** A UTC day, YYYY-MM-DD, that exists on the calendar. */
export function parseDay(value: unknown, field: string): string {
  if (typeof value !== 'string' || !DAY.test(value) || Number.isNaN(Date.parse(value))) throw new ValidationError(field, 'must be a day, YYYY-MM-DD (UTC)');
  return value;
}

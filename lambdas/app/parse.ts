import { MAX_JSON_NESTING, scanJsonText } from '#domain/json-text.ts';
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

/** A body object and the exact source text of each of its fields. */
export interface ParsedBody {
  readonly fields: Json;
  /** The field's value as the caller wrote it, byte for byte (undefined when absent). */
  readonly sourceOf: (field: string) => string | undefined;
}

/**
 * Parses a request body that must be one JSON object with only `allowed` fields. The text is
 * scanned first (domain/json-text.ts): JSON that JSON.parse would silently rewrite (non-finite
 * numbers, integers beyond 2^53, duplicate keys) or that nests deeper than a field may is
 * refused naming the value, and only then parsed, which the nesting bound keeps cheap.
 */
export function parseObjectSource(raw: string | null | undefined, allowed: readonly string[], maxBytes = MAX_EVENT_BYTES, outerLevels = 1): ParsedBody {
  if (raw === null || raw === undefined || raw.trim() === '') throw new ValidationError('body', 'a JSON object is required');
  if (Buffer.byteLength(raw, 'utf8') > maxBytes) throw new ValidationError('body', `must be at most ${maxBytes} bytes`);
  // The containers around a field's value (`outerLevels`: the body object, for a batch also its
  // list and item) do not count: each field's value may nest MAX_JSON_NESTING deep.
  const scan = scanJsonText(raw, { maxNesting: MAX_JSON_NESTING, outerLevels });
  if (!scan.ok) {
    const { kind, path, rule } = scan.refusal;
    throw new ValidationError(kind === 'syntax' || path === '' ? 'body' : path, rule);
  }
  const value: unknown = JSON.parse(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError('body', 'must be a JSON object');
  rejectUnknownFields(value as Json, allowed);
  return {
    fields: value as Json,
    sourceOf: (field) => {
      const span = scan.members.get(field);
      return span && raw.slice(span.start, span.end);
    },
  };
}

/** Parses a request body that must be one JSON object with only `allowed` fields (see parseObjectSource). */
export function parseObject(raw: string | null | undefined, allowed: readonly string[], maxBytes = MAX_EVENT_BYTES): Json {
  return parseObjectSource(raw, allowed, maxBytes).fields;
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

/** An id with its type prefix (`sub_`, `dlv_`, `rpl_`). Anything but a string is refused: a regex test would coerce `["sub_x"]` into a match. */
export function parseId(value: unknown, prefix: string, field: string): string {
  if (typeof value !== 'string' || !new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`).test(value)) throw new ValidationError(field, `must be an id starting with ${prefix}_`);
  return value;
}

/** A percent-encoded path segment, decoded; a malformed escape is the caller's mistake in `field`, not a fault. */
export function decodePathSegment(segment: string, field: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ValidationError(field, 'has a malformed percent-escape');
  }
}

/**
 * Refuses a query parameter given more than once (`?subscriptionId=a&subscriptionId=b`):
 * keeping either value silently would answer a question the caller did not ask.
 */
export function rejectRepeatedParameters(params: Readonly<Record<string, readonly string[] | undefined>> | null | undefined): void {
  for (const [name, values] of Object.entries(params ?? {})) {
    if (values && values.length > 1) throw new ValidationError(name, 'must be given at most once');
  }
}

/** A tenant id: 1 to 128 letters, digits, or . _ : - */
export function parseTenantId(value: unknown, field = 'tenantId'): string {
  if (typeof value !== 'string' || !TENANT_PATTERN.test(value)) throw new ValidationError(field, 'must be 1 to 128 letters, digits, or . _ : -');
  return value;
}

/** Days in each month of a common year; February gains one in a leap year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * Whether the fields of a date-time exist on the calendar and the clock. Date.parse rolls
 * 2024-02-30 over into March and reads 24:00 as the next day, so each field is checked here.
 */
function existsOnCalendar(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?[^Z+-]*(?:Z|[+-](\d{2}):(\d{2})))?$/.exec(text);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v)));
  if (month! < 1 || month! > 12) return false;
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month! - 1]!;
  return day! >= 1 && day! <= days && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 23 && offsetMinutes! <= 59;
}

/**
 * A point in time for a range bound: an ISO 8601 instant with a zone, or a bare day, which
 * means the start of that day for `from` and its last millisecond for `to`.
 */
export function parseInstant(value: unknown, field: string, end: 'from' | 'to'): string {
  if (typeof value !== 'string') throw new ValidationError(field, 'is required: an ISO 8601 time (2024-05-01T00:00:00Z) or a day (2024-05-01)');
  const text = DAY.test(value) ? `${value}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : value;
  const ms = INSTANT.test(text) && existsOnCalendar(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(field, `'${value.slice(0, 40)}' is not an ISO 8601 time with a zone (2024-05-01T00:00:00Z) or a day (2024-05-01) that exists on the calendar`);
  return new Date(ms).toISOString();
}

/** A UTC day, YYYY-MM-DD, that exists on the calendar. */
export function parseDay(value: unknown, field: string): string {
  if (typeof value !== 'string' || !DAY.test(value) || !existsOnCalendar(value)) throw new ValidationError(field, 'must be a day, YYYY-MM-DD (UTC), that exists on the calendar');
  return value;
}

import type { z } from 'zod';
import { MAX_JSON_NESTING, scanJsonText } from '#domain/json-text.ts';
import type { DeliveryState } from '#domain/states.ts';
import type { PageRequest } from '#ports/page.ts';
import { ValidationError } from '#app/errors.ts';
import {
  day,
  deliveryState,
  instantBound,
  limit,
  PAGE_LIMIT,
  pageQuery,
  prefixedId,
  tenantId,
  type IdPrefix,
} from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';

/**
 * Reading requests, shared by every capability: the JSON text of a body (kept byte for byte
 * where a field must be), path segments and query strings. The rules a value must keep are
 * zod schemas (lambdas/app/schema/); the parse* functions here apply one, naming the field it
 * refuses, and nothing is stored.
 */

export const MAX_EVENT_BYTES = 256 * 1024;

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
export function parseObjectSource(
  raw: string | null | undefined,
  allowed: readonly string[],
  maxBytes = MAX_EVENT_BYTES,
  outerLevels = 1,
): ParsedBody {
  if (raw === null || raw === undefined || raw.trim() === '')
    throw new ValidationError('body', 'a JSON object is required');
  if (Buffer.byteLength(raw, 'utf8') > maxBytes) throw new ValidationError('body', `must be at most ${maxBytes} bytes`);
  // The containers around a field's value (`outerLevels`: the body object, for a batch also its
  // list and item) do not count: each field's value may nest MAX_JSON_NESTING deep.
  const scan = scanJsonText(raw, { maxNesting: MAX_JSON_NESTING, outerLevels });
  if (!scan.ok) {
    const { kind, path, rule } = scan.refusal;
    throw new ValidationError(kind === 'syntax' || path === '' ? 'body' : path, rule);
  }
  const value: unknown = JSON.parse(raw);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ValidationError('body', 'must be a JSON object');
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
export function parseObject(
  raw: string | null | undefined,
  allowed: readonly string[],
  maxBytes = MAX_EVENT_BYTES,
): Json {
  return parseObjectSource(raw, allowed, maxBytes).fields;
}

/** The fields an object schema declares, under any refinements or transforms around it. */
function declaredFields(schema: z.ZodType): readonly string[] {
  const def = (schema as unknown as { _zod: { def: { shape?: z.ZodRawShape; in?: z.ZodType; schema?: z.ZodType } } })
    ._zod.def;
  if (def.shape) return Object.keys(def.shape);
  const inner = def.in ?? def.schema;
  if (!inner) throw new Error('parseBody needs an object schema');
  return declaredFields(inner);
}

/**
 * A JSON object body read by `schema`: the text rules first (parseObjectSource, at most
 * `maxBytes`), then the schema, so a refusal names the field whichever found it.
 */
export function parseBody<S extends z.ZodType>(
  raw: string | null | undefined,
  schema: S,
  maxBytes = MAX_EVENT_BYTES,
): z.output<S> {
  return parseWith(schema, parseObjectSource(raw, declaredFields(schema), maxBytes).fields);
}

/** parseBody for a body that may be left out (or blank): then it reads as `{}`. */
export function parseOptionalBody<S extends z.ZodType>(
  raw: string | null | undefined,
  schema: S,
  maxBytes = MAX_EVENT_BYTES,
): z.output<S> {
  return raw === null || raw === undefined || raw.trim() === ''
    ? parseWith(schema, {})
    : parseBody(raw, schema, maxBytes);
}

/**
 * A query string read by `schema` (unknown parameters are ignored; the handler has refused
 * repeated ones), with absent values left out rather than present as undefined.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: Query): z.output<S> {
  const value = parseWith(schema, query, 'query') as Record<string, unknown>;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as z.output<S>;
}

/** Refuses a field not in `allowed`, naming the first one. */
export function rejectUnknownFields(body: Json, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0)
    throw new ValidationError(unknown[0]!, `is not a known field (allowed: ${allowed.join(', ')})`);
}

/** A page size from the query string: a whole number from 1 to 100 (the `limit` schema), `fallback` when absent. */
export function parseLimit(value: string | undefined, fallback: number = PAGE_LIMIT.default): number {
  return value === undefined ? fallback : parseWith(limit, value, 'limit');
}

/** `limit` (1 to 100, default 50) and the opaque `cursor` of a listing (the `pageQuery` schema). */
export function parsePageRequest(query: Query): PageRequest {
  return parseQuery(pageQuery, query);
}

/** An optional delivery-state filter. */
export function parseState(value: string | undefined): DeliveryState | undefined {
  return parseWith(deliveryState.optional(), value, 'state');
}

/** An id with its type prefix (`sub_`, `dlv_`, `rpl_`), refused on `field`. */
export function parseId(value: unknown, prefix: string, field: string): string {
  return parseWith(prefixedId(prefix as IdPrefix), value, field);
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
export function rejectRepeatedParameters(
  params: Readonly<Record<string, readonly string[] | undefined>> | null | undefined,
): void {
  for (const [name, values] of Object.entries(params ?? {})) {
    if (values && values.length > 1) throw new ValidationError(name, 'must be given at most once');
  }
}

/** A tenant id (the `tenantId` schema), refused on `field`. */
export function parseTenantId(value: unknown, field = 'tenantId'): string {
  return parseWith(tenantId, value, field);
}

/** A point in time for a range bound (the `instantBound` schema), as a UTC instant. */
export function parseInstant(value: unknown, field: string, end: 'from' | 'to'): string {
  return parseWith(instantBound(end), value, field);
}

/** A UTC day, YYYY-MM-DD, that exists on the calendar (the `day` schema). */
export function parseDay(value: unknown, field: string): string {
  return parseWith(day, value, field);
}

import { z } from 'zod';
import { DELIVERY_STATES } from '#domain/states.ts';

/**
 * The request pieces every capability shares, as zod schemas: each one is the rule (what
 * parseWith refuses, with the message a caller reads) and its documentation (what the OpenAPI
 * document shows, through z.toJSONSchema), so the two cannot drift apart. Each schema's
 * messages are the rule alone; parseWith puts the field's name in front.
 */

/** `{error: rule}` for a schema and its checks: a wrong type and a wrong value read the same rule. */
export const rule = (text: string) => ({ error: text });

/**
 * A body object with only these fields. An unknown one is refused naming it (parseWith adds the
 * key to the issue's path) and listing the allowed ones, at any depth.
 */
export function fields<S extends z.ZodRawShape>(shape: S) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `is not a known field (allowed: ${allowed})`
        : issue.code === 'invalid_type'
          ? 'must be a JSON object'
          : undefined,
  });
}

// ---------------------------------------------------------------------------------------------
// Ids

/** The part of a generated id after its prefix: what DynamoDB can key and a URL path can carry unescaped. */
export const ID_BODY = '[A-Za-z0-9_-]{1,64}';

/** The prefix of each kind of generated id. */
export const ID_PREFIXES = {
  subscription: 'sub',
  delivery: 'dlv',
  replay: 'rpl',
  key: 'key',
  event: 'evt',
  portalSession: 'psn',
} as const;
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/** The pattern of an id with its type prefix (`sub_…`), unanchored, for a route's path template. */
export const idPatternSource = (prefix: IdPrefix) => `${prefix}_${ID_BODY}`;

/**
 * An id with its type prefix. Anything but a string is refused: a regex test alone would
 * coerce `["sub_x"]` into a match.
 */
export function prefixedId(prefix: IdPrefix, options: { readonly required?: string } = {}) {
  const text = `must be an id starting with ${prefix}_`;
  const { required } = options;
  if (!required) return z.string(rule(text)).regex(new RegExp(`^${idPatternSource(prefix)}$`), rule(text));
  // Missing or empty, the caller is told why it is needed rather than what it looks like.
  return z
    .string({ error: (issue) => (issue.input === undefined ? required : text) })
    .min(1, rule(required))
    .regex(new RegExp(`^${idPatternSource(prefix)}$`), rule(text));
}

export const subscriptionId = prefixedId(ID_PREFIXES.subscription);
export const deliveryId = prefixedId(ID_PREFIXES.delivery);
export const replayId = prefixedId(ID_PREFIXES.replay);
export const keyId = prefixedId(ID_PREFIXES.key);
export const portalSessionId = prefixedId(ID_PREFIXES.portalSession);

/** A tenant id: 1 to 128 letters, digits, or . _ : - (the one copy of this rule). */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
export const TENANT_ID_RULE = 'must be 1 to 128 letters, digits, or . _ : -';
export const tenantId = z.string(rule(TENANT_ID_RULE)).regex(TENANT_ID_PATTERN, rule(TENANT_ID_RULE));

/** A producer's event id: 1 to 128 visible ASCII characters (it becomes the `webhook-id` header, so no space or control). */
export const EVENT_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
export const eventId = z
  .string(rule('must be 1 to 128 visible ASCII characters'))
  .regex(EVENT_ID_PATTERN, rule('must be 1 to 128 visible ASCII characters'));

/** A published event's type (a subscription's patterns match it). */
export const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_.:-]{1,256}$/;
export const eventType = z
  .string(rule('a non-empty string is required'))
  .min(1, rule('a non-empty string is required'))
  .regex(EVENT_TYPE_PATTERN, rule('must be at most 256 letters, digits, or . _ : -'));

// ---------------------------------------------------------------------------------------------
// Query parameters: strings on the wire, each given at most once (the handler refuses repeats).

/**
 * A whole number in a query parameter, digits only (`1e2`, ` 5` and `` are refused, which
 * Number() would read), within [min, max]; absent, `fallback`. Documented as the integer it is.
 */
export function wholeNumberParam(
  bounds: { readonly min: number; readonly max: number; readonly default: number },
  ruleText: string,
) {
  const digits = String(bounds.max).length;
  return (
    z
      .string(rule(ruleText))
      .refine(
        (v) => new RegExp(`^\\d{1,${digits}}$`).test(v) && Number(v) >= bounds.min && Number(v) <= bounds.max,
        rule(ruleText),
      )
      .transform(Number)
      .optional()
      .transform((v) => v ?? bounds.default)
      // What a caller sends is a number; the pattern zod would add for the string is its spelling.
      .meta({
        type: 'integer',
        minimum: bounds.min,
        maximum: bounds.max,
        default: bounds.default,
        pattern: undefined,
      } as Record<string, unknown>)
  );
}

/** A page of a listing: at most this many items, 50 unless asked. */
export const PAGE_LIMIT = Object.freeze({ min: 1, max: 100, default: 50 });
export const limit = wholeNumberParam(PAGE_LIMIT, `must be a whole number from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`);

/** The opaque cursor of a listing (a previous page's `nextCursor`); the store refuses one it did not issue. Empty means none. */
export const cursor = z
  .string()
  .optional()
  .transform((v) => v || undefined)
  .meta({ description: "a previous page's nextCursor, unchanged" });

/** `limit` and `cursor`: every listing takes them; extend it with a listing's own filters. */
export const pageQuery = z.object({ limit, cursor });

/** A delivery-state filter. */
export const deliveryState = z.enum(DELIVERY_STATES, rule(`must be one of ${DELIVERY_STATES.join(', ')}`));

// ---------------------------------------------------------------------------------------------
// Times

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Days in each month of a common year; February gains one in a leap year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * Whether the fields of a date-time exist on the calendar and the clock. Date.parse rolls
 * 2024-02-30 over into March and reads 24:00 as the next day, so each field is checked here.
 */
function existsOnCalendar(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?[^Z+-]*(?:Z|[+-](\d{2}):(\d{2})))?$/.exec(text);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m
    .slice(1)
    .map((v) => (v === undefined ? undefined : Number(v)));
  if (month! < 1 || month! > 12) return false;
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month! - 1]!;
  return (
    day! >= 1 &&
    day! <= days &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHours! <= 23 &&
    offsetMinutes! <= 59
  );
}

const INSTANT_RULE = 'is required: an ISO 8601 time (2024-05-01T00:00:00Z) or a day (2024-05-01)';

/**
 * A point in time for a range bound, read as a UTC instant (`toISOString`): an ISO 8601 time
 * with a zone, or a bare day, which means the start of that day for `from` and its last
 * millisecond for `to`.
 */
export function instantBound(end: 'from' | 'to') {
  return z
    .string(rule(INSTANT_RULE))
    .transform((value, ctx) => {
      const text = DAY.test(value) ? `${value}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : value;
      const ms = INSTANT.test(text) && existsOnCalendar(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `'${value.slice(0, 40)}' is not an ISO 8601 time with a zone (2024-05-01T00:00:00Z) or a day (2024-05-01) that exists on the calendar`,
        });
        return z.NEVER;
      }
      return new Date(ms).toISOString();
    })
    .meta({
      description: `an ISO 8601 time with a zone, or a day (YYYY-MM-DD: the ${end === 'from' ? 'start' : 'end'} of that UTC day)`,
      examples: ['2024-05-01T00:00:00Z', '2024-05-01'],
    });
}

/** A UTC day, YYYY-MM-DD, that exists on the calendar. */
export const day = z
  .string(rule('must be a day, YYYY-MM-DD (UTC), that exists on the calendar'))
  .refine(
    (v) => DAY.test(v) && existsOnCalendar(v),
    rule('must be a day, YYYY-MM-DD (UTC), that exists on the calendar'),
  )
  .meta({ format: 'date' });

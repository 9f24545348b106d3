import { isReservedEventType, RESERVED_EVENT_TYPE_PREFIX } from './event-types.ts';

/**
 * The event-type catalog: the types producers register (a description, optionally a JSON Schema
 * and an example), and what publish makes of an event when the deployment checks events against
 * it (HOOKLINE_EVENT_TYPE_CHECK). Pure: whether a payload matches a schema is the app's to find
 * out (a SchemaValidator port) and comes in here as a result.
 */

/**
 * What publish does with an event whose type is not registered, or whose payload does not match
 * its type's schema. `allow`: nothing (the catalog is never read on publish); `warn`: accepts it
 * and says why in the answer; `refuse`: refuses it (400), nothing stored.
 */
export const EVENT_TYPE_CHECKS = ['allow', 'warn', 'refuse'] as const;
export type EventTypeCheck = (typeof EVENT_TYPE_CHECKS)[number];

/**
 * `allow`: the catalog documents types and feeds the forms, and publish stays as it was, at no
 * added read, for deployments that never register a type (a `warn` or `refuse` deployment reads
 * the whole catalog once per container per cache period, and validates each payload that has a schema).
 */
export const DEFAULT_EVENT_TYPE_CHECK: EventTypeCheck = 'allow';

export function isEventTypeCheck(value: string): value is EventTypeCheck {
  return (EVENT_TYPE_CHECKS as readonly string[]).includes(value);
}

/** Bounds of one entry and of the catalog: publish reads it whole into every warm container. */
export const EVENT_TYPE_LIMITS = Object.freeze({
  /** Characters of a description. */
  descriptionMax: 1000,
  /** Bytes of a schema's JSON text, and of an example's. */
  schemaBytesMax: 32 * 1024,
  exampleBytesMax: 32 * 1024,
  /** Registered types at most: the catalog publish caches is read whole (a Scan), so it must stay small. */
  typesMax: 500,
});

/** A registered event type as stored: the schema and the example as the JSON text the producer wrote. */
export interface EventTypeEntry {
  readonly name: string;
  readonly description: string;
  /** A JSON Schema (an object, draft 2020-12 or 07) as JSON text; absent: any payload. */
  readonly schemaJson?: string;
  /** An example payload as JSON text; absent: none. */
  readonly exampleJson?: string;
  readonly deprecated: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * Why `name` cannot be registered, or undefined when it can. The characters are the event type's
 * own rule (app/schema/common.ts); beyond it a catalog entry is one type, never a subscription's
 * pattern, and never one of Hookline's own (which producers may not publish).
 */
export function catalogNameRefusal(name: string): string | undefined {
  if (name.includes('*')) return 'must be one event type, not a pattern (* or prefix.*)';
  if (isReservedEventType(name))
    return `must not start with '${RESERVED_EVENT_TYPE_PREFIX}' (reserved for Hookline's own event types)`;
  return undefined;
}

/** Something publish tells the producer about an event it accepted: which field, and what. */
export interface EventTypeWarning {
  readonly field: 'type' | 'payload';
  readonly message: string;
}

/** What the catalog makes of one event under a check other than `allow`. */
export type EventTypeVerdict =
  | { readonly kind: 'accept'; readonly warnings: readonly EventTypeWarning[] }
  /** Refused: nothing of the event is stored; `rule` follows the field's name in the 400's message. */
  | { readonly kind: 'refuse'; readonly field: 'type' | 'payload'; readonly rule: string };

export const ACCEPTED_AS_IS: EventTypeVerdict = Object.freeze({ kind: 'accept', warnings: Object.freeze([]) });

/**
 * The verdict on an event of `type` whose type is registered as `entry` (undefined: not
 * registered), its payload found to break the entry's schema as `schemaError` (undefined: it
 * matches, or there is no schema). Hookline's own types are never checked. A deprecated type is
 * accepted with a warning under `warn` and `refuse` alike: it still works, and the producer is told.
 */
export function eventTypeVerdict(
  check: EventTypeCheck,
  type: string,
  entry: EventTypeEntry | undefined,
  schemaError: string | undefined,
): EventTypeVerdict {
  if (check === 'allow' || isReservedEventType(type)) return ACCEPTED_AS_IS;
  if (!entry) {
    const rule = `${type} is not registered in the event-type catalog`;
    return check === 'refuse'
      ? { kind: 'refuse', field: 'type', rule }
      : { kind: 'accept', warnings: [{ field: 'type', message: `type ${rule}` }] };
  }
  const mismatch = schemaError === undefined ? undefined : `does not match the schema of ${type}: ${schemaError}`;
  if (mismatch !== undefined && check === 'refuse') return { kind: 'refuse', field: 'payload', rule: mismatch };
  const warnings: EventTypeWarning[] = [];
  if (entry.deprecated)
    warnings.push({ field: 'type', message: `type ${type} is deprecated in the event-type catalog` });
  if (mismatch !== undefined) warnings.push({ field: 'payload', message: `payload ${mismatch}` });
  return warnings.length === 0 ? ACCEPTED_AS_IS : { kind: 'accept', warnings };
}

/** Whether a publish must read the catalog at all: not under `allow`, nor for a batch of Hookline's own types only. */
export function catalogNeeded(check: EventTypeCheck, types: readonly string[]): boolean {
  return check !== 'allow' && types.some((type) => !isReservedEventType(type));
}

/**
 * The event-type catalog as the dashboard uses it: the register form's text and the request
 * body it becomes, and which registered types a subscription form or a test event offers. Like
 * endpoint-model.ts, nothing here checks a value: the API does (its 400 names the field, and
 * the form shows its message there). Pure: no DOM, no fetch, so the unit tests run it as it is.
 */
import { TEST_EVENT_TYPE, testEventRefusal } from '#domain/event-types.ts';
import { listOf, suggestedTestTypes } from './endpoint-model.ts';

/** A registered type as the dashboard reads it (an item of `GET /v1/event-types`). */
export interface EventTypeLike {
  readonly name: string;
  readonly description: string;
  readonly schema: unknown;
  readonly example: unknown;
  readonly deprecated: boolean;
}

/** The register/edit form as typed: the schema and the example are JSON text. */
export interface EventTypeDraft {
  readonly name: string;
  readonly description: string;
  readonly schema: string;
  readonly example: string;
  readonly deprecated: boolean;
}

export const EMPTY_EVENT_TYPE_DRAFT: EventTypeDraft = {
  name: '',
  description: '',
  schema: '',
  example: '',
  deprecated: false,
};

/** The fields the register form has, as the API names them in a refusal (`schema: …`). */
export const EVENT_TYPE_FIELDS = ['name', 'description', 'schema', 'example', 'deprecated'] as const;
export type EventTypeField = (typeof EVENT_TYPE_FIELDS)[number];

/** A JSON value as the form's text: pretty-printed, blank for none. */
export const jsonText = (value: unknown): string =>
  value === null || value === undefined ? '' : JSON.stringify(value, null, 2);

/** The draft an edit starts from: the type as it is. */
export function eventTypeDraftOf(type: EventTypeLike): EventTypeDraft {
  return {
    name: type.name,
    description: type.description,
    schema: jsonText(type.schema),
    example: jsonText(type.example),
    deprecated: type.deprecated,
  };
}

/**
 * The `PUT /v1/event-types/{name}` body as text. The schema and the example are spliced in as
 * typed, so text that is not JSON reaches the API, whose refusal says where it breaks; blank
 * leaves the field out (a PUT replaces the type: no schema, no example).
 */
export function eventTypeBodyText(draft: EventTypeDraft): string {
  const fields = [`"description":${JSON.stringify(draft.description.trim())}`];
  if (draft.schema.trim() !== '') fields.push(`"schema":${draft.schema}`);
  if (draft.example.trim() !== '') fields.push(`"example":${draft.example}`);
  fields.push(`"deprecated":${draft.deprecated}`);
  return `{${fields.join(',')}}`;
}

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * Where a refusal of the whole body belongs: the body is the description, the schema and the
 * example as typed, so a body that is not JSON is the schema's or the example's text (the first
 * that does not parse). Undefined when both parse: then it is about the body as a whole.
 */
export function unparsedField(draft: EventTypeDraft): 'schema' | 'example' | undefined {
  if (draft.schema.trim() !== '' && !parses(draft.schema)) return 'schema';
  if (draft.example.trim() !== '' && !parses(draft.example)) return 'example';
  return undefined;
}

/** The event-types text's items (one per line or comma-separated), as a set to tick the catalog's types by. */
export function pickedTypes(eventTypes: string): ReadonlySet<string> {
  return new Set(listOf(eventTypes));
}

/**
 * The event-types text with `name` added (as a line of its own, after the others) or taken out;
 * every other line, a hand-typed `*` or `prefix.*` too, is kept as it is.
 */
export function toggleType(eventTypes: string, name: string, on: boolean): string {
  const items = listOf(eventTypes);
  const without = items.filter((item) => item !== name);
  return (on ? [...without, name] : without).join('\n');
}

/**
 * The pattern among `patterns` that already selects `name` without naming it (`order.*` for
 * `order.created`, `*`), for the form to say so; undefined when none does, or one names it.
 */
export function coveringPattern(patterns: readonly string[], name: string): string | undefined {
  if (patterns.includes(name)) return undefined;
  return patterns.find((p) => p !== name && testEventRefusal({ eventTypes: [p] }, name) === undefined);
}

/**
 * The types a test of this subscription offers: the test type, then each registered type the
 * subscription receives (by name). With an empty catalog, the subscription's own exact types and
 * an example under each `prefix.*`, as before there was one. The person may type any other; the
 * API says whether the endpoint receives it.
 */
export function testTypeChoices(
  subscription: { readonly eventTypes: readonly string[]; readonly tenantId?: string | null },
  catalog: readonly EventTypeLike[],
): string[] {
  const scope = {
    eventTypes: subscription.eventTypes,
    ...(subscription.tenantId ? { tenantId: subscription.tenantId } : {}),
  };
  if (catalog.length === 0) return suggestedTestTypes(subscription.eventTypes);
  const received = catalog.filter((t) => testEventRefusal(scope, t.name) === undefined).map((t) => t.name);
  return [...new Set([TEST_EVENT_TYPE, ...received])];
}

/** A registered type's example as the test payload's text, or undefined when it has none. */
export function catalogExample(catalog: readonly EventTypeLike[], type: string): string | undefined {
  const found = catalog.find((t) => t.name === type.trim());
  return found && found.example !== null && found.example !== undefined ? jsonText(found.example) : undefined;
}

/**
 * The endpoint forms' text, as the person types it, and the request bodies it becomes. Nothing
 * here checks a value: the API does (its 400 names the field, and the form shows its message
 * there), so the page never holds a second copy of a rule that could disagree with it. Pure: no
 * DOM, no fetch, so the unit tests run it as it is.
 */
import { TEST_EVENT_TYPE } from '#domain/event-types.ts';
// Pure domain modules only: the page's bundle cannot take the API's node:crypto imports.
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '#domain/subscription-states.ts';

export { TEST_EVENT_TYPE };

/** An endpoint as the forms read it (a subscription as the API answers it). */
export interface EndpointLike {
  readonly id: string;
  readonly url: string;
  readonly description: string | null;
  readonly eventTypes: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly rateLimitPerSecond: number | null;
  readonly contactEmails: readonly string[];
}

/** The form's fields as typed: lists one item per line (or comma-separated), headers one `Name: value` per line. */
export interface EndpointDraft {
  readonly url: string;
  readonly description: string;
  readonly eventTypes: string;
  readonly headers: string;
  readonly rateLimit: string;
  readonly contactEmails: string;
  /** The console's only: which tenant a new endpoint is for (a portal session's is always its own). */
  readonly tenantId: string;
}

export const EMPTY_DRAFT: EndpointDraft = {
  url: '',
  description: '',
  eventTypes: '',
  headers: '',
  rateLimit: '',
  contactEmails: '',
  tenantId: '',
};

/** The body fields the endpoint forms have, as the API names them in a refusal (`url: …`). */
export const ENDPOINT_FIELDS = [
  'url',
  'description',
  'eventTypes',
  'headers',
  'rateLimitPerSecond',
  'contactEmails',
  'tenantId',
] as const;
export type EndpointField = (typeof ENDPOINT_FIELDS)[number];

/** The draft an edit starts from: the endpoint as it is. */
export function draftOf(endpoint: EndpointLike): EndpointDraft {
  return {
    url: endpoint.url,
    description: endpoint.description ?? '',
    eventTypes: endpoint.eventTypes.join('\n'),
    headers: Object.entries(endpoint.headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    rateLimit: endpoint.rateLimitPerSecond === null ? '' : String(endpoint.rateLimitPerSecond),
    contactEmails: endpoint.contactEmails.join('\n'),
    tenantId: '',
  };
}

/** Items one per line or comma-separated, trimmed, blanks dropped. */
export function listOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * `Name: value` lines as a header object. A line without a colon becomes a header with an empty
 * value, which the API refuses naming it: the person learns the rule from the API, not from here.
 */
export function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const name = (colon === -1 ? line : line.slice(0, colon)).trim();
    headers[name] = colon === -1 ? '' : line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The rate limit as the API should read it: blank is none; a number is sent as one; anything
 * else is sent as the text it is, for the API to refuse with its rule (a NaN would travel as
 * `null`, which a change reads as "remove the limit").
 */
export function rateLimitOf(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The `POST /v1/subscriptions` body: only what was filled in (an empty URL is sent, for the API to say it is required). */
export function createBody(draft: EndpointDraft): Record<string, unknown> {
  const eventTypes = listOf(draft.eventTypes);
  const headers = headersOf(draft.headers);
  const rateLimit = rateLimitOf(draft.rateLimit);
  const contactEmails = listOf(draft.contactEmails);
  return {
    url: draft.url.trim(),
    ...(eventTypes.length > 0 ? { eventTypes } : {}),
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(rateLimit !== undefined ? { rateLimitPerSecond: rateLimit } : {}),
    ...(contactEmails.length > 0 ? { contactEmails } : {}),
    ...(draft.tenantId.trim() ? { tenantId: draft.tenantId.trim() } : {}),
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** Header names compare without case, as HTTP does (the API keeps them lower-cased). */
const headerText = (h: Readonly<Record<string, string>>) =>
  JSON.stringify(
    Object.entries(h)
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(),
  );

/**
 * The `PATCH /v1/subscriptions/{id}` body: the fields the draft changes, `null` for an optional
 * one emptied (the API's "remove it"). Nothing changed is `{}`, which the API refuses with its
 * own words ("name at least one field to change").
 */
export function changeBody(endpoint: EndpointLike, draft: EndpointDraft): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  const url = draft.url.trim();
  if (url !== endpoint.url) change.url = url;
  const description = draft.description.trim();
  if (description !== (endpoint.description ?? '')) change.description = description === '' ? null : description;
  const eventTypes = listOf(draft.eventTypes);
  if (!sameList(eventTypes, endpoint.eventTypes)) change.eventTypes = eventTypes;
  const headers = headersOf(draft.headers);
  if (headerText(headers) !== headerText(endpoint.headers))
    change.headers = Object.keys(headers).length === 0 ? null : headers;
  const rateLimit = rateLimitOf(draft.rateLimit);
  if ((rateLimit ?? null) !== endpoint.rateLimitPerSecond) change.rateLimitPerSecond = rateLimit ?? null;
  const contactEmails = listOf(draft.contactEmails);
  if (!sameList(contactEmails, endpoint.contactEmails))
    change.contactEmails = contactEmails.length === 0 ? null : contactEmails;
  return change;
}

/**
 * The field a 400's message names (`headers.x-a: …` → `headers`), when it is one of `fields`;
 * undefined for a refusal of the whole body or of a field the form does not have.
 */
export function refusedField<F extends string>(message: string, fields: readonly F[]): F | undefined {
  const match = /^([A-Za-z]+)(?:[.[][^:]*)?: /.exec(message);
  const field = match?.[1];
  return fields.find((f) => f === field);
}

/**
 * Types worth offering for a test of an endpoint with these event types: the test type, each
 * exact type, and an example under each `prefix.*`. The person may type any other; the API says
 * whether the endpoint receives it.
 */
export function suggestedTestTypes(eventTypes: readonly string[]): string[] {
  const suggestions = eventTypes.flatMap((pattern) =>
    pattern === '*' ? [] : pattern.endsWith('.*') ? [`${pattern.slice(0, -1)}example`] : [pattern],
  );
  return [...new Set([TEST_EVENT_TYPE, ...suggestions])];
}

/** An example payload for a test of `type`, marked as an example so a receiver can tell it from a real event. */
export function examplePayload(type: string, subscriptionId: string): string {
  return JSON.stringify(
    {
      example: true,
      type,
      subscriptionId,
      message:
        type === TEST_EVENT_TYPE
          ? 'A test event from the Hookline portal: your endpoint is reachable and verifies signatures.'
          : `An example ${type} event, sent from the Hookline portal to test this endpoint.`,
    },
    null,
    2,
  );
}

/**
 * The `POST /v1/subscriptions/{id}/test` body as text: the payload is spliced in as typed, so
 * text that is not JSON reaches the API, whose refusal says where it breaks.
 */
export function testEventBodyText(type: string, payload: string): string {
  const fields = [`"type":${JSON.stringify(type.trim())}`];
  if (payload.trim() !== '') fields.push(`"payload":${payload}`);
  return `{${fields.join(',')}}`;
}

/** The secrets a rotation answers: the new one first, then the old ones, each signing until its `expiresAt`. */
export interface RotatedSecrets {
  readonly secrets: readonly { readonly expiresAt: string | null }[];
}

/** Until when an old secret still verifies after a rotation (the latest overlap end); undefined when none is left. */
export function overlapUntil(rotated: RotatedSecrets): string | undefined {
  const ends = rotated.secrets
    .slice(1)
    .map((s) => s.expiresAt)
    .filter((at): at is string => at !== null);
  return ends.length === 0 ? undefined : ends.reduce((a, b) => (b > a ? b : a));
}

/** How an overlap reads in the rotate form. */
function overlapText(seconds: number): string {
  if (seconds === 0) return 'none: the old secret stops now';
  if (seconds > 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400} days`;
  const hours = seconds / 3600;
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/** The overlaps the rotate form offers (seconds): none, an hour, the API's default and its most, each as the API counts it. */
export const OVERLAP_CHOICES: readonly (readonly [number, string])[] = [
  ...new Set([0, 3600, DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS]),
].map((seconds) => [
  seconds,
  `${overlapText(seconds)}${seconds === DEFAULT_ROTATION_OVERLAP_SECONDS ? ' (the default)' : seconds === MAX_ROTATION_OVERLAP_SECONDS ? ' (the most)' : ''}`,
]);
export { DEFAULT_ROTATION_OVERLAP_SECONDS };

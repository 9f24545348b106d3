import { z } from 'zod';
import { ValidationError } from '#app/errors.ts';
import { MAX_EVENT_BYTES, parseObjectSource } from '#app/parse.ts';
import { eventId, eventType, fields, rule, subscriptionId, tenantId } from '#app/schema/common.ts';
import { EVERY_TENANT } from '#domain/audience.ts';
import { parseWith } from '#app/schema/refuse.ts';
import { isReservedEventType, RESERVED_EVENT_TYPE_PREFIX } from '#domain/event-types.ts';
import { eventIdForMessage } from '#domain/ids.ts';
import { scanJsonText } from '#domain/json-text.ts';

/** Most subscriptions one event may name (`subscriptionIds`). */
export const MAX_NAMED_SUBSCRIPTIONS = 20;

/**
 * One event as a producer publishes it, `{id?, type, payload, tenantId?, audience?,
 * subscriptionIds?}`. The payload is any JSON value; it is read from the body's text
 * (parseObjectSource), not from this schema's output, so it is sent byte for byte.
 */
export const publishEvent = fields({
  id: eventId.optional().meta({
    description: 'the idempotency key: the same id again publishes nothing new (default: a generated evt_ id)',
  }),
  // Hookline's own types (hookline.test, the operational events) are never a producer's to publish.
  type: eventType.refine(
    (t) => !isReservedEventType(t),
    rule(`must not start with '${RESERVED_EVENT_TYPE_PREFIX}' (reserved for Hookline's own events)`),
  ),
  payload: z
    .custom<unknown>((value) => value !== undefined, rule('is required (any JSON value)'))
    .meta({ description: "any JSON value, sent as the webhook body's `data` exactly as written" }),
  tenantId: tenantId.optional().meta({
    description:
      "the tenant the event belongs to: it reaches only that tenant's subscriptions. Absent: only subscriptions without a tenant. A tenant key publishes for its own tenant (absent means it), never another's (403)",
  }),
  audience: z
    .literal(EVERY_TENANT, rule(`must be "${EVERY_TENANT}" when given`))
    .optional()
    .meta({
      description:
        '"all": every tenant\'s matching subscriptions and those without a tenant, at once. The admin key only (a tenant key is refused 403); not with `tenantId`',
    }),
  subscriptionIds: z
    .array(subscriptionId, rule('must be a list of subscription ids'))
    .min(1, rule('must name 1 to 20 subscriptions'))
    .max(MAX_NAMED_SUBSCRIPTIONS, rule(`must name 1 to ${MAX_NAMED_SUBSCRIPTIONS} subscriptions`))
    .refine((ids) => new Set(ids).size === ids.length, rule('must not name a subscription twice'))
    .optional()
    .meta({
      description:
        'only these subscriptions of the audience (those whose event types select the type); an id outside the audience refuses the event (400), and nothing is stored',
    }),
});

export interface PublishRequest {
  readonly id?: string;
  readonly type: string;
  readonly tenantId?: string;
  readonly audience?: typeof EVERY_TENANT;
  readonly subscriptionIds?: readonly string[];
  /**
   * The payload's JSON text exactly as the producer wrote it, checked by the JSON text rules
   * (domain/json-text.ts): it is sent as `data` byte for byte, never re-serialised, so no
   * number, escape or key order changes on the way.
   */
  readonly payloadJson: string;
}

/** `POST /v1/events` and an ingest queue message: `{id?, type, payload, tenantId?, audience?, subscriptionIds?}`; a ValidationError names the first field to fix. */
export function parsePublishRequest(raw: string | null | undefined): PublishRequest {
  const { fields: body, sourceOf } = parseObjectSource(raw, Object.keys(publishEvent.shape));
  const { id, type, tenantId, audience, subscriptionIds } = parseWith(publishEvent, body);
  if (audience && tenantId !== undefined)
    throw new ValidationError(
      'audience',
      `"${EVERY_TENANT}" reaches every tenant; leave out tenantId (or leave out audience to reach tenant ${tenantId} alone)`,
    );
  return {
    ...(id ? { id } : {}),
    type,
    ...(tenantId !== undefined ? { tenantId } : {}),
    ...(audience ? { audience } : {}),
    ...(subscriptionIds ? { subscriptionIds } : {}),
    payloadJson: sourceOf('payload')!,
  };
}

/** An ingest queue message: the same fields as `POST /v1/events`, and an id from the message when the producer gave none. */
export function parseIngestMessage(raw: string, messageId: string): PublishRequest {
  const request = parsePublishRequest(raw);
  return request.id ? request : { ...request, id: eventIdForMessage(messageId) };
}

/** Most events one `POST /v1/events/batch` takes. */
export const MAX_BATCH_EVENTS = 100;
/** A batch body's limit: the gateway's (local/gateway.ts), and well inside Lambda's 6 MB request. */
export const MAX_BATCH_BYTES = 1024 * 1024;

/**
 * The `POST /v1/events/batch` body as documented. The parser below reads it event by event
 * from the text (each with publishEvent), so each payload keeps its bytes and a refusal names
 * the event (`events[3].type`).
 */
export const publishBatch = fields({
  events: z.array(publishEvent).min(1).max(MAX_BATCH_EVENTS),
});

/**
 * `POST /v1/events/batch`: `{events: [{id?, type, payload}, ...]}`, 1 to MAX_BATCH_EVENTS
 * events, each checked by the same rules as a single publish (each at most MAX_EVENT_BYTES).
 * One bad event refuses the whole batch, naming it (`events[3].type`), so nothing is stored
 * from a request the producer must fix anyway.
 */
export function parsePublishBatch(raw: string | null | undefined): readonly PublishRequest[] {
  // Three levels around a payload: the body, its list and the event.
  const { sourceOf } = parseObjectSource(raw, Object.keys(publishBatch.shape), MAX_BATCH_BYTES, 3);
  const list = sourceOf('events');
  if (list === undefined) throw new ValidationError('events', 'is required (a list of 1 to 100 events)');
  const scan = scanJsonText(list, { outerLevels: 3 });
  if (!scan.ok || !list.trimStart().startsWith('[')) throw new ValidationError('events', 'must be a list of events');
  if (scan.elements.length === 0 || scan.elements.length > MAX_BATCH_EVENTS)
    throw new ValidationError('events', `must hold 1 to ${MAX_BATCH_EVENTS} events, not ${scan.elements.length}`);
  return scan.elements.map((span, i) => {
    const text = list.slice(span.start, span.end);
    if (Buffer.byteLength(text, 'utf8') > MAX_EVENT_BYTES)
      throw new ValidationError(`events[${i}]`, `must be at most ${MAX_EVENT_BYTES} bytes`);
    try {
      return parsePublishRequest(text);
    } catch (error) {
      if (error instanceof ValidationError)
        throw new ValidationError(error.field === 'body' ? `events[${i}]` : `events[${i}].${error.field}`, error.rule, {
          cause: error,
        });
      throw error;
    }
  });
}

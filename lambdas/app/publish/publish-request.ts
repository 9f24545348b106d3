import { ValidationError } from '#app/errors.ts';
import { MAX_EVENT_BYTES, optionalString, parseObjectSource } from '#app/parse.ts';
import { eventIdForMessage } from '#domain/ids.ts';
import { scanJsonText } from '#domain/json-text.ts';

const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
const TYPE_PATTERN = /^[A-Za-z0-9_.:-]{1,256}$/;

export interface PublishRequest {
  readonly id?: string;
  readonly type: string;
  /**
   * The payload's JSON text exactly as the producer wrote it, checked by the JSON text rules
   * (domain/json-text.ts): it is sent as `data` byte for byte, never re-serialised, so no
   * number, escape or key order changes on the way.
   */
  readonly payloadJson: string;
}

/** `POST /v1/events` and an ingest queue message: `{id?, type, payload}`; a ValidationError names the first field to fix. */
export function parsePublishRequest(raw: string | null | undefined): PublishRequest {
  const { fields: body, sourceOf } = parseObjectSource(raw, ['id', 'type', 'payload']);
  const id = optionalString(body, 'id', ID_PATTERN, 'must be 1 to 128 visible ASCII characters');
  if (typeof body.type !== 'string' || body.type.length === 0) throw new ValidationError('type', 'a non-empty string is required');
  if (!TYPE_PATTERN.test(body.type)) throw new ValidationError('type', 'must be at most 256 letters, digits, or . _ : -');
  const payloadJson = sourceOf('payload');
  if (payloadJson === undefined) throw new ValidationError('payload', 'is required (any JSON value)');
  return { ...(id ? { id } : {}), type: body.type, payloadJson };
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
 * `POST /v1/events/batch`: `{events: [{id?, type, payload}, ...]}`, 1 to MAX_BATCH_EVENTS
 * events, each checked by the same rules as a single publish (each at most MAX_EVENT_BYTES).
 * One bad event refuses the whole batch, naming it (`events[3].type`), so nothing is stored
 * from a request the producer must fix anyway.
 */
export function parsePublishBatch(raw: string | null | undefined): readonly PublishRequest[] {
  // Three levels around a payload: the body, its list and the event.
  const { sourceOf } = parseObjectSource(raw, ['events'], MAX_BATCH_BYTES, 3);
  const list = sourceOf('events');
  if (list === undefined) throw new ValidationError('events', 'is required (a list of 1 to 100 events)');
  const scan = scanJsonText(list, { outerLevels: 3 });
  if (!scan.ok || !list.trimStart().startsWith('[')) throw new ValidationError('events', 'must be a list of events');
  if (scan.elements.length === 0 || scan.elements.length > MAX_BATCH_EVENTS) throw new ValidationError('events', `must hold 1 to ${MAX_BATCH_EVENTS} events, not ${scan.elements.length}`);
  return scan.elements.map((span, i) => {
    const text = list.slice(span.start, span.end);
    if (Buffer.byteLength(text, 'utf8') > MAX_EVENT_BYTES) throw new ValidationError(`events[${i}]`, `must be at most ${MAX_EVENT_BYTES} bytes`);
    try {
      return parsePublishRequest(text);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(error.field === 'body' ? `events[${i}]` : `events[${i}].${error.field}`, error.rule, { cause: error });
      throw error;
    }
  });
}

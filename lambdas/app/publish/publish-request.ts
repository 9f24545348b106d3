import { ValidationError } from '#app/errors.ts';
import { optionalString, parseObjectSource } from '#app/parse.ts';

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

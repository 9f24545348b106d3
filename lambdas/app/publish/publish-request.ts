import { ValidationError } from '#app/errors.ts';
import { optionalString, parseObject } from '#app/parse.ts';

const ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
const TYPE_PATTERN = /^[A-Za-z0-9_.:-]{1,256}$/;

export interface PublishRequest {
  readonly id?: string;
  readonly type: string;
  readonly payload: unknown;
}

export function parsePublishRequest(raw: string | null | undefined): PublishRequest {
  const body = parseObject(raw, ['id', 'type', 'payload']);
  const id = optionalString(body, 'id', ID_PATTERN, 'must be 1 to 128 visible ASCII characters');
  if (typeof body.type !== 'string' || body.type.length === 0) throw new ValidationError('type', 'a non-empty string is required');
  if (!TYPE_PATTERN.test(body.type)) throw new ValidationError('type', 'must be at most 256 letters, digits, or . _ : -');
  if (!('payload' in body)) throw new ValidationError('payload', 'is required (any JSON value)');
  return { ...(id ? { id } : {}), type: body.type, payload: body.payload };
}

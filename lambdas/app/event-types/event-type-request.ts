import { z } from 'zod';
import { catalogNameRefusal, EVENT_TYPE_LIMITS } from '#domain/event-type-catalog.ts';
import { ValidationError } from '#app/errors.ts';
import { decodePathSegment, parseObjectSource } from '#app/parse.ts';
import { eventType, fields, rule } from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';

/** A registered type's name from a path (`/v1/event-types/{name}`): one event type, not a pattern, not one of Hookline's own. */
export function parseEventTypeName(segment: string): string {
  const name = decodePathSegment(segment, 'name');
  const refusal = catalogNameRefusal(name);
  if (refusal) throw new ValidationError('name', refusal);
  return parseWith(eventType, name, 'name');
}

const { descriptionMax, schemaBytesMax, exampleBytesMax } = EVENT_TYPE_LIMITS;

/**
 * `PUT /v1/event-types/{name}`: the type whole (a PUT replaces it; null reads as absent). The
 * schema and the example are read from the body's text, so they are stored as written.
 */
export const putEventTypeBody = fields({
  description: z
    .string(rule(`is required: 1 to ${descriptionMax} characters`))
    .trim()
    .min(1, rule(`is required: 1 to ${descriptionMax} characters`))
    .max(descriptionMax, rule(`must be at most ${descriptionMax} characters`))
    .meta({ description: 'what an event of this type means, for producers and subscribers' }),
  schema: z
    .record(z.string(), z.unknown(), rule('must be a JSON Schema: a JSON object'))
    .nullable()
    .optional()
    .meta({
      description: `a JSON Schema (draft 2020-12, or draft-07 with its $schema) the payloads of this type are checked against when the deployment checks them; at most ${schemaBytesMax / 1024} KiB of JSON. It must compile (remote $refs are not fetched), and formats are annotations only`,
    }),
  example: z
    .unknown()
    .optional()
    .meta({
      description: `an example payload (any JSON value, at most ${exampleBytesMax / 1024} KiB); with a schema it must match it`,
    }),
  deprecated: z
    .boolean(rule('must be true or false'))
    .optional()
    .meta({ description: 'still accepted, with a warning under the `warn` and `refuse` checks (default false)' }),
});

export interface PutEventTypeRequest {
  readonly description: string;
  /** The schema's JSON text as written; absent: none. */
  readonly schemaJson?: string;
  /** The example's JSON text as written; absent: none. */
  readonly exampleJson?: string;
  readonly deprecated: boolean;
}

/** The body of `PUT /v1/event-types/{name}`; a ValidationError names the field to fix. */
export function parsePutEventType(raw: string | null | undefined): PutEventTypeRequest {
  const { fields: body, sourceOf } = parseObjectSource(raw, Object.keys(putEventTypeBody.shape));
  const { description, schema, example, deprecated } = parseWith(putEventTypeBody, body);
  const text = (field: 'schema' | 'example', maxBytes: number) => {
    const source = sourceOf(field);
    if (source === undefined) return undefined;
    if (Buffer.byteLength(source, 'utf8') > maxBytes)
      throw new ValidationError(field, `must be at most ${maxBytes / 1024} KiB of JSON`);
    return source;
  };
  const schemaJson = schema === null || schema === undefined ? undefined : text('schema', schemaBytesMax);
  const exampleJson = example === null || example === undefined ? undefined : text('example', exampleBytesMax);
  return {
    description,
    ...(schemaJson !== undefined ? { schemaJson } : {}),
    ...(exampleJson !== undefined ? { exampleJson } : {}),
    deprecated: deprecated ?? false,
  };
}

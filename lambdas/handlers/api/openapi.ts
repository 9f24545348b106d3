import { z } from 'zod';
import packageJson from '../../../package.json' with { type: 'json' };
import {
  IDEMPOTENCY_KEY_FIELD,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_RULE,
  IDEMPOTENCY_KEY_TTL_SECONDS,
} from '#app/idempotency/idempotency.ts';
import { OPERATIONAL_EVENT_COMPONENTS, OPERATIONAL_EVENT_SCHEMAS } from '#app/notices/operational-events.ts';
import { IDEMPOTENCY_KEY_ROUTES, routeKey } from './idempotency.ts';
import {
  OPERATIONS,
  PATH_PARAMETER_SCHEMAS,
  REQUEST_COMPONENTS,
  RESPONSE_COMPONENTS,
  type Operation,
} from './operations.ts';
import { portalLevelsFor } from './portal-access.ts';
import { PORTAL_ACCESS_LEVELS } from '#domain/portal-session.ts';
import { parameterNames, type Route } from './route.ts';

/**
 * The OpenAPI 3.1 document of the HTTP API, built from the router's ROUTES (which routes exist,
 * their path templates and who may call them) and the operations table (what each takes and
 * answers, as zod schemas, rendered by z.toJSONSchema). `GET /openapi.json` serves it and
 * `npm run openapi` writes it to docs/openapi.json; a unit test keeps the two equal and checks
 * that every route is documented and every documented operation is a route.
 */

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { readonly paths: Record<string, Record<string, unknown>> };

const REF = (name: string) => `#/components/schemas/${name}`;
const OPERATIONS_BY_KEY: Readonly<Record<string, Operation>> = OPERATIONS;

/** A schema as a component or a parameter carries it: no `$schema` or `$id` of its own. */
function bare(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Each named schema as JSON Schema, other named ones referenced by `$ref`; `io` is the side a caller sees (request: input, answer: output). */
function components(named: Readonly<Record<string, z.ZodType>>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, target: 'draft-2020-12', unrepresentable: 'any', uri: REF });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, bare(schema as JsonSchema)]));
}

/** The name each component schema goes by; an operation's body or answer must be one of them. */
function namesOf(...tables: Readonly<Record<string, z.ZodType>>[]): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const table of tables)
    for (const [name, schema] of Object.entries(table)) if (!names.has(schema)) names.set(schema, name);
  return names;
}

const ERROR_RESPONSES = {
  BadRequest: {
    status: 400,
    description: 'invalid_request: the message names the field to fix first (`url: …`); nothing was stored',
  },
  Unauthorized: { status: 401, description: 'unauthorized: no valid `Authorization: Bearer <key>`' },
  Forbidden: {
    status: 403,
    description:
      'forbidden: this key may not do this (a tenant key on an admin route or for another tenant, a portal session on a route not open to it)',
  },
  NotFound: {
    status: 404,
    description: "not_found: no such resource (another tenant's ids look exactly like ones that do not exist)",
  },
  Conflict: {
    status: 409,
    description:
      'conflict: the resource is in a state that forbids this, or a request with the same Idempotency-Key is still running',
  },
  PayloadTooLarge: { status: 413, description: 'payload_too_large: the body is over 1 MiB (refused by the gateway)' },
  IdempotencyKeyReused: {
    status: 422,
    description: 'idempotency_key_reused: this Idempotency-Key was sent with another request (method, path or body)',
  },
  RateLimited: {
    status: 429,
    description: 'rate_limited: too many requests of this kind; retry after `Retry-After` seconds',
  },
  InternalError: { status: 500, description: 'internal_error: a fault, not the request; nothing internal is shown' },
  Unavailable: {
    status: 503,
    description: 'unavailable: nothing was stored; send the same request again after `Retry-After` seconds',
  },
} as const;
type ErrorResponseName = keyof typeof ERROR_RESPONSES;
const ERROR_BY_STATUS = new Map(
  Object.entries(ERROR_RESPONSES).map(([name, r]) => [r.status as number, name as ErrorResponseName]),
);

/** The refusals a route gives by its kind alone: who may call it, whether it names a resource, takes a body or an Idempotency-Key. */
export function commonErrors(route: Pick<Route, 'method' | 'path' | 'access'>, operation: Operation): number[] {
  const statuses = new Set<number>(operation.errors ?? []);
  if (route.access !== 'public') {
    // Every authenticated route refuses a query parameter given twice, so 400 is always possible.
    for (const status of [400, 401, 429, 500]) statuses.add(status);
    if (route.access === 'admin') statuses.add(403);
    // A tenant route some portal session may not call (one of a level that does not open it) refuses it (portal-access.ts).
    if (route.access === 'tenant' && portalLevelsFor(routeKey(route)).length < PORTAL_ACCESS_LEVELS.length)
      statuses.add(403);
    if (parameterNames(route.path).length > 0) statuses.add(404);
    if (operation.body) statuses.add(413);
    if (IDEMPOTENCY_KEY_ROUTES.has(routeKey(route))) for (const status of [409, 422]) statuses.add(status);
  }
  return [...statuses].sort((a, b) => a - b);
}

/** The statuses a route is documented to answer, with the schema of each body: what the integration tests check answers against. */
export function documentedAnswers(
  route: Pick<Route, 'method' | 'path' | 'access'>,
): ReadonlyMap<number, z.ZodType> | undefined {
  const operation = OPERATIONS_BY_KEY[routeKey(route)];
  if (!operation) return undefined;
  const answers = new Map<number, z.ZodType>(
    Object.entries(operation.responses).map(([status, a]) => [Number(status), a.schema]),
  );
  for (const status of commonErrors(route, operation)) answers.set(status, RESPONSE_COMPONENTS.Error);
  return answers;
}

function parameterSchema(schema: z.ZodType): JsonSchema {
  return bare(z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema);
}

/** A query schema's fields as OpenAPI query parameters. */
function queryParameters(query: z.ZodObject): JsonSchema[] {
  const schema = parameterSchema(query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    required: (schema.required ?? []).includes(name) && property.default === undefined,
    ...(description ? { description } : {}),
    schema: property,
  }));
}

function operationObject(
  route: Route,
  operation: Operation,
  names: ReadonlyMap<z.ZodType, string>,
): Record<string, unknown> {
  const key = routeKey(route);
  const nameOf = (schema: z.ZodType, what: string) => {
    const name = names.get(schema);
    if (!name) throw new Error(`${key}: its ${what} schema is not one of the operations table's components`);
    return name;
  };
  const parameters: JsonSchema[] = [
    ...parameterNames(route.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: parameterSchema(PATH_PARAMETER_SCHEMAS[name]),
    })),
    ...(operation.query ? queryParameters(operation.query) : []),
    ...(IDEMPOTENCY_KEY_ROUTES.has(key)
      ? [
          {
            name: IDEMPOTENCY_KEY_FIELD,
            in: 'header',
            required: false,
            description: `The same key again (same caller, same route) answers what the first request answered, for ${IDEMPOTENCY_KEY_TTL_SECONDS / 3600} h, and does nothing again. ${IDEMPOTENCY_KEY_RULE}.`,
            schema: parameterSchema(z.string().regex(IDEMPOTENCY_KEY_PATTERN)),
          },
        ]
      : []),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(operation.responses)) {
    responses[status] = {
      description: a.description,
      content: { [a.mediaType ?? 'application/json']: { schema: { $ref: REF(nameOf(a.schema, `${status} answer`)) } } },
    };
  }
  for (const status of commonErrors(route, operation)) {
    const name = ERROR_BY_STATUS.get(status);
    if (!name) throw new Error(`${key}: no error response is documented for status ${status}`);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: operation.tags,
    ...(route.access === 'admin'
      ? { 'x-hookline-access': 'admin' }
      : route.access === 'tenant'
        ? { 'x-hookline-access': 'tenant' }
        : {}),
    // The portal access levels that may call the route (portal-access.ts).
    ...(portalLevelsFor(key).length > 0 ? { 'x-hookline-portal': portalLevelsFor(key) } : {}),
    security: route.access === 'public' ? [] : [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: !operation.body.optional,
            content: { 'application/json': { schema: { $ref: REF(nameOf(operation.body.schema, 'body')) } } },
          },
        }
      : {}),
    responses,
  };
}

let cached: { routes: readonly Route[]; document: OpenApiDocument } | undefined;

/** The document for `routes` (ROUTES), built once per process. Routes the operations table does not know are left out (the coverage test names them). */
export function openApiDocument(routes: readonly Route[]): OpenApiDocument {
  if (cached?.routes === routes) return cached.document;
  const requests = components(REQUEST_COMPONENTS, 'input');
  const answers = components(RESPONSE_COMPONENTS, 'output');
  const clash = Object.keys(requests).find((name) => name in answers);
  if (clash) throw new Error(`component ${clash} is both a request and an answer`);
  // A body's parser refuses a field it does not know (parseObjectSource), whatever the schema says of extra keys.
  for (const schema of Object.values(requests)) if (schema.type === 'object') schema.additionalProperties = false;
  const names = namesOf(REQUEST_COMPONENTS, RESPONSE_COMPONENTS);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation = OPERATIONS_BY_KEY[routeKey(route)];
    if (!operation) continue;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, operation, names);
  }
  // The operational webhooks Hookline itself sends (failure notices, replay.completed), as OpenAPI 3.1 `webhooks`.
  const events = components(OPERATIONAL_EVENT_COMPONENTS, 'output');
  const eventNames = namesOf(OPERATIONAL_EVENT_COMPONENTS);
  const webhooks = Object.fromEntries(
    Object.entries(OPERATIONAL_EVENT_SCHEMAS).map(([type, schema]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(/\W+/g, '_')}`,
          summary: `${type}: an operational webhook`,
          description:
            'Sent to every subscription without a tenant whose eventTypes name it (a catch-all `*` does not select operational events), signed and retried like any webhook. ' +
            'The `webhook-id` is derived from the notice, the same on every retry and re-send. See docs/operations.md, "Failure notices and operational webhooks".',
          tags: ['Operational webhooks'],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'type', 'timestamp', 'data'],
                  properties: {
                    id: { type: 'string', description: 'the event id (also the webhook-id header)' },
                    type: { type: 'string', const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: { $ref: REF(eventNames.get(schema)!) },
                  },
                },
              },
            },
          },
          responses: { '200': { description: 'any 2xx: received (a 4xx other than 408/425/429 stops the retries)' } },
        },
      },
    ]),
  );
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Hookline',
      version: packageJson.version,
      description:
        'Outbound webhooks: publish events, manage subscriptions, inspect deliveries and dead letters, replay. JSON in and out; ' +
        '`Authorization: Bearer <key>` on everything but GET /health and GET /openapi.json (the admin key, or a tenant key where a route allows it: ' +
        '`x-hookline-access`; a customer portal session where `x-hookline-portal` lists its access level, view or manage). Errors are `{"error": {"code", "message"}}`. Times are ISO 8601; ids carry a prefix (`sub_`, `dlv_`, `rpl_`, `key_`).',
      license: { name: packageJson.license, identifier: packageJson.license },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [...new Set([...Object.values(OPERATIONS_BY_KEY).flatMap((o) => o.tags), 'Operational webhooks'])].map(
      (name) => ({ name }),
    ),
    paths,
    webhooks,
    components: {
      schemas: { ...requests, ...answers, ...events },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([name, r]) => [
          name,
          {
            description: r.description,
            ...(r.status === 429 || r.status === 503
              ? {
                  headers: {
                    'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 0 } },
                  },
                }
              : {}),
            content: { 'application/json': { schema: { $ref: REF('Error') } } },
          },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'the admin key (hk_admin_…), a tenant key (hk_tenant_…) or a portal session token (hk_portal_…, on the routes whose x-hookline-portal lists its access level)',
        },
      },
    },
  };
  cached = { routes, document };
  return document;
}

/** The document as docs/openapi.json holds it. */
export const openApiText = (routes: readonly Route[]) => `${JSON.stringify(openApiDocument(routes), null, 2)}\n`;

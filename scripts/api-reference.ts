/**
 * The generated half of docs/api.md: a reference of every operation, rendered from the OpenAPI
 * document (lambdas/handlers/api/openapi.ts), so it says what the API checks. `npm run openapi`
 * (scripts/openapi.ts) writes it between REFERENCE_START and REFERENCE_END and leaves the
 * hand-written part around the markers as it is; a unit test fails while it is stale.
 */
import { PORTAL_ACCESS_LEVELS } from '#domain/portal-session.ts';
import type { OpenApiDocument } from '#handlers/api/openapi.ts';

export const REFERENCE_START = '<!-- reference:start -->';
export const REFERENCE_END = '<!-- reference:end -->';

type Schema = Record<string, any>;
type OperationObject = Record<string, any>;

/** One operation to render: a route (`GET /v1/…`) or an operational webhook (`POST <your endpoint>`). */
interface Entry {
  readonly title: string;
  readonly operation: OperationObject;
  readonly webhook: boolean;
}

const METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** zod's bounds of an unbounded integer: not worth saying. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

const PLURAL: Readonly<Record<string, string>> = { string: 'strings', object: 'objects', integer: 'integers' };
const nameOf = (ref: string) => ref.split('/').pop()!;
const code = (text: string) => `\`${text}\``;
/** Text for one table cell: no line breaks, no column separators. */
const cell = (text: string | undefined) => (text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

function range(min: number | undefined, max: number | undefined, unit = ''): string {
  const lo = min !== undefined && Math.abs(min) < UNBOUNDED ? min : undefined;
  const hi = max !== undefined && Math.abs(max) < UNBOUNDED ? max : undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? `${lo}${unit}` : `${lo}–${hi}${unit}`;
  if (lo !== undefined) return `at least ${lo}${unit}`;
  if (hi !== undefined) return `at most ${hi}${unit}`;
  return '';
}

const withDetail = (base: string, detail: string) => (detail ? `${base}, ${detail}` : base);

/** A schema in a few words: its type and the bounds a caller must keep to. */
function typeText(schema: Schema, bodies: ReadonlyMap<string, string>): string {
  if (schema.$ref) {
    const name = nameOf(schema.$ref);
    const of = bodies.get(name);
    return of ? `${code(name)} (the body of ${code(of)})` : code(name);
  }
  if (schema.anyOf) return (schema.anyOf as Schema[]).map((s) => typeText(s, bodies)).join(' or ');
  if ('const' in schema) return code(JSON.stringify(schema.const));
  if (schema.enum) return `one of ${(schema.enum as unknown[]).map((v) => code(String(v))).join(', ')}`;
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return 'any';
  return types
    .map((type) => {
      switch (type) {
        case 'string':
          return withDetail(
            schema.format ? `string (${schema.format})` : 'string',
            schema.minLength === 1 && schema.maxLength === undefined
              ? 'not empty'
              : range(schema.minLength, schema.maxLength, ' characters'),
          );
        case 'integer':
        case 'number':
          return withDetail(type, range(schema.minimum, schema.maximum));
        case 'array': {
          const item = schema.items && Object.keys(schema.items).length > 0 ? typeText(schema.items, bodies) : '';
          const items = item ? ` of ${PLURAL[item] ?? item}` : '';
          return withDetail(`array${items}`, range(schema.minItems, schema.maxItems, ' items'));
        }
        case 'object':
          return schema.additionalProperties?.type === 'string' ? 'object of strings' : 'object';
        default:
          return type;
      }
    })
    .join(' or ');
}

function fieldTable(rows: readonly (readonly [string, string, boolean, string | undefined])[]): string[] {
  return [
    '| field | type | required | description |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      ([name, type, required, description]) =>
        `| ${code(name)} | ${cell(type)} | ${required ? 'yes' : 'no'} | ${cell(description)} |`,
    ),
  ];
}

/** The fields of an object schema (a component, followed by its `$ref`), one row each. */
function objectFields(schema: Schema, document: OpenApiDocument, bodies: ReadonlyMap<string, string>): string[] {
  const resolved = schema.$ref ? componentSchema(document, nameOf(schema.$ref)) : schema;
  const required = new Set<string>(resolved.required ?? []);
  return fieldTable(
    Object.entries<Schema>(resolved.properties ?? {}).map(
      ([name, property]) => [name, typeText(property, bodies), required.has(name), property.description] as const,
    ),
  );
}

function componentSchema(document: OpenApiDocument, name: string): Schema {
  const schema = (document.components as any)?.schemas?.[name];
  if (!schema) throw new Error(`the document has no component schema ${name}`);
  return schema;
}

function accessText(operation: OperationObject): string {
  if (operation.security?.length === 0) return 'public: no key';
  const portal: readonly string[] = operation['x-hookline-portal'] ?? [];
  const who =
    operation['x-hookline-access'] === 'admin'
      ? [portal.length > 0 ? 'the admin key' : 'the admin key only']
      : ['the admin key', "a tenant key (its own tenant's only)"];
  // Any session, or one of the levels named: a "manage" route is not a view session's.
  if (portal.length > 0)
    who.push(
      portal.length === PORTAL_ACCESS_LEVELS.length
        ? 'a customer portal session'
        : `a customer portal session with access ${portal.join(' or ')}`,
    );
  return who.join(', ');
}

function jsonBody(operation: OperationObject): Schema | undefined {
  return operation.requestBody?.content?.['application/json']?.schema;
}

function responseRows(operation: OperationObject, document: OpenApiDocument): string[] {
  const shared = (document.components as any)?.responses ?? {};
  const rows = Object.entries<Schema>(operation.responses ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, response]) => {
      if (response.$ref) {
        const named = shared[nameOf(response.$ref)];
        if (!named) throw new Error(`the document has no response ${response.$ref}`);
        return `| ${status} | ${cell(named.description)} |`;
      }
      const schema = Object.values<Schema>(response.content ?? {})[0]?.schema;
      const body = schema?.$ref ? ` (${code(nameOf(schema.$ref))})` : '';
      return `| ${status} | ${cell(response.description)}${body} |`;
    });
  return ['| status | meaning |', '| --- | --- |', ...rows];
}

function renderEntry(
  { title, operation, webhook }: Entry,
  document: OpenApiDocument,
  bodies: ReadonlyMap<string, string>,
): string[] {
  const out = [
    `#### ${code(title)}`,
    '',
    `**${operation.summary}.**${operation.description ? ` ${operation.description}` : ''}`,
    '',
  ];
  if (!webhook) out.push(`Who may call it: ${accessText(operation)}.`, '');
  const parameters: Schema[] = operation.parameters ?? [];
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length > 0) {
    out.push(
      'Query:',
      '',
      ...fieldTable(
        query.map((p) => [p.name, typeText(p.schema ?? {}, bodies), p.required === true, p.description] as const),
      ),
      '',
    );
  }
  for (const header of parameters.filter((p) => p.in === 'header')) {
    out.push(
      `Header ${code(header.name)}${header.required ? '' : ' (optional)'}: ${header.description ?? typeText(header.schema ?? {}, bodies)}`,
      '',
    );
  }
  const body = jsonBody(operation);
  if (body) {
    const name = body.$ref ? ` (${code(nameOf(body.$ref))})` : '';
    out.push(
      `Body${name}${operation.requestBody.required ? '' : ', optional'}:`,
      '',
      ...objectFields(body, document, bodies),
      '',
    );
    // An operational webhook's `data` is the part that differs by type: its fields too.
    const data = webhook
      ? (body.$ref ? componentSchema(document, nameOf(body.$ref)) : body).properties?.data
      : undefined;
    if (data)
      out.push(
        `${code('data')}${data.$ref ? ` (${code(nameOf(data.$ref))})` : ''}:`,
        '',
        ...objectFields(data, document, bodies),
        '',
      );
  }
  out.push(webhook ? 'Your answer:' : 'Answers:', '', ...responseRows(operation, document), '');
  return out;
}

/** The reference of every operation and operational webhook in `document`, by tag, as Markdown (without the markers). */
export function apiReference(document: OpenApiDocument): string {
  const entries: (Entry & { tag: string })[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    // In the document's order, which is the router's.
    for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
      if (METHODS.has(method))
        entries.push({
          title: `${method.toUpperCase()} ${path}`,
          operation,
          webhook: false,
          tag: operation.tags?.[0] ?? 'Other',
        });
    }
  }
  for (const [type, item] of Object.entries<Record<string, OperationObject>>((document.webhooks as any) ?? {})) {
    const operation = item.post;
    if (operation)
      entries.push({
        title: `POST <your endpoint>: ${type}`,
        operation,
        webhook: true,
        tag: operation.tags?.[0] ?? 'Other',
      });
  }
  // The component each route takes as its body, so a field of that type can say where it is described.
  const bodies = new Map<string, string>();
  for (const { title, operation, webhook } of entries) {
    const ref = jsonBody(operation)?.$ref;
    if (ref && !webhook && !bodies.has(nameOf(ref))) bodies.set(nameOf(ref), title);
  }
  const tags = [
    ...new Set([
      ...((document.tags as { name: string }[] | undefined) ?? []).map((t) => t.name),
      ...entries.map((e) => e.tag),
    ]),
  ];
  const lines = [
    '<!-- Generated by `npm run openapi` from the OpenAPI document (docs/openapi.json). Edit operations.ts or the schemas, not this part. -->',
    '',
  ];
  for (const tag of tags) {
    const ofTag = entries.filter((e) => e.tag === tag);
    if (ofTag.length === 0) continue;
    lines.push(`### ${tag}`, '');
    for (const entry of ofTag) lines.push(...renderEntry(entry, document, bodies));
  }
  return lines.join('\n');
}

/** Where the markers are in `text`; an error when either is missing, repeated or out of order, so nothing overwrites a hand-written part it cannot place. */
function markers(text: string): { start: number; end: number } {
  const count = (marker: string) => text.split(marker).length - 1;
  if (count(REFERENCE_START) !== 1 || count(REFERENCE_END) !== 1) {
    throw new Error(
      `docs/api.md must hold ${REFERENCE_START} and ${REFERENCE_END} once each, around the generated reference`,
    );
  }
  const start = text.indexOf(REFERENCE_START);
  const end = text.indexOf(REFERENCE_END);
  if (end < start) throw new Error(`${REFERENCE_END} comes before ${REFERENCE_START}`);
  return { start, end };
}

/** `text` with `reference` between its markers; everything outside them is kept byte for byte. */
export function withReference(text: string, reference: string): string {
  const { start, end } = markers(text);
  return `${text.slice(0, start + REFERENCE_START.length)}\n${reference.trimEnd()}\n${text.slice(end)}`;
}

/** The hand-written part of `text`: what comes before the start marker and after the end marker. */
export function handWrittenPart(text: string): { readonly before: string; readonly after: string } {
  const { start, end } = markers(text);
  return { before: text.slice(0, start), after: text.slice(end + REFERENCE_END.length) };
}

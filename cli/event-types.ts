import { readFileSync } from 'node:fs';
import { ValidationError } from '#app/errors.ts';
import { parsePutEventType } from '#app/event-types/event-type-request.ts';
import { MAX_JSON_NESTING, scanJsonText } from '#domain/json-text.ts';
import type { Context } from './commands.ts';
import { CliError, EXIT } from './errors.ts';
import { table } from './output.ts';
import { line } from './printable.ts';

// biome-ignore lint/suspicious/noExplicitAny: the API's answers are printed as they come; the typed client checks their shapes.
type Json = any;

export interface PutEventTypeOptions {
  readonly description: string;
  /** A file holding the type's JSON Schema. */
  readonly schemaFile?: string;
  /** A file holding an example payload. */
  readonly exampleFile?: string;
  readonly deprecated?: boolean;
}

/** Which flag a refused field of the body came from. */
const FLAG_OF: Readonly<Record<string, string>> = {
  description: '--description',
  schema: '--schema-file',
  example: '--example-file',
  deprecated: '--deprecated',
};

/** The file's text, which must be one JSON value and nothing else (it is spliced into the body as it is). */
function readJsonFile(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new CliError(`${flag}: cannot read ${path}: ${(error as Error).message}`, EXIT.usage, { cause: error });
  }
  const scan = scanJsonText(text, { maxNesting: MAX_JSON_NESTING });
  if (!scan.ok)
    throw new CliError(
      `${flag} ${scan.refusal.kind === 'value' && scan.refusal.path ? `${scan.refusal.path}: ` : ''}${scan.refusal.rule}`,
      EXIT.usage,
    );
  return text;
}

/**
 * The `PUT /v1/event-types/{name}` body, with the files' JSON spliced in as the text it is (so
 * the schema and example are stored as written), checked with the service's own parser first,
 * so a file that is not JSON or not an object is named by its flag before anything is sent.
 */
export function eventTypeBody(o: PutEventTypeOptions): string {
  const parts = [`"description":${JSON.stringify(o.description)}`];
  if (o.schemaFile !== undefined) parts.push(`"schema":${readJsonFile(o.schemaFile, '--schema-file')}`);
  if (o.exampleFile !== undefined) parts.push(`"example":${readJsonFile(o.exampleFile, '--example-file')}`);
  if (o.deprecated) parts.push('"deprecated":true');
  const body = `{${parts.join(',')}}`;
  try {
    parsePutEventType(body);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new CliError(`${FLAG_OF[error.field] ?? error.field}: ${error.rule}`, EXIT.usage, { cause: error });
  }
  return body;
}

/** A JSON value as an indented block under its label: JSON.stringify escapes every control character in it but the line breaks it adds. */
const jsonBlock = (value: unknown) =>
  value === null ? '-' : JSON.stringify(value, null, 2).replace(/\n/g, '\n               ');

const typeLines = (t: Json) =>
  [
    line`${t.name}${t.deprecated ? '  (deprecated)' : ''}`,
    line`  description  ${t.description}`,
    line`  created      ${t.createdAt}   updated ${t.updatedAt}`,
    `  schema       ${jsonBlock(t.schema)}`,
    `  example      ${jsonBlock(t.example)}`,
  ].join('\n');

/** `event-types list`: the whole catalog, in name order (every page). */
export async function eventTypesList(ctx: Context) {
  const items: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.backend.call('GET /v1/event-types', { query: { limit: 100, cursor } });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  ctx.out.result({ items, nextCursor: null }, () =>
    items.length === 0
      ? 'no event types registered'
      : table(
          items.map((t) => [
            t.name,
            t.deprecated ? 'deprecated' : '',
            t.schema === null ? '' : 'schema',
            t.description,
          ]),
          ['NAME', 'STATE', 'SCHEMA', 'DESCRIPTION'],
        ),
  );
}

export async function eventTypesGet(ctx: Context, name: string) {
  const t = await ctx.backend.call('GET /v1/event-types/{name}', { params: { name } });
  ctx.out.result(t, () => typeLines(t));
}

/** `event-types put`: registers the type or replaces it whole (a schema or example left out is removed). */
export async function eventTypesPut(ctx: Context, name: string, o: PutEventTypeOptions) {
  const { status, body: t } = await ctx.backend.request('PUT /v1/event-types/{name}', {
    params: { name },
    bodyText: eventTypeBody(o),
  });
  ctx.out.result(t, () => `${status === 201 ? 'registered' : 'replaced'} ${typeLines(t)}`);
}

export async function eventTypesDelete(ctx: Context, name: string) {
  const t = await ctx.backend.call('DELETE /v1/event-types/{name}', { params: { name } });
  ctx.out.result(t, () => line`deleted ${t.name} from the catalog; events of it are unregistered ones from now on`);
}

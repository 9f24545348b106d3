import Ajv, { type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { setBounded } from '#domain/bounded-map.ts';
import { EVENT_TYPE_LIMITS } from '#domain/event-type-catalog.ts';
import type { SchemaValidator } from '#ports/schema-validator.ts';

/** The `$schema` URIs of draft-07 (with and without the empty fragment); anything else but 2020-12's is refused. */
const DRAFT_07 = new Set(['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema']);
const DRAFT_2020_12 = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

/**
 * Options of both dialects. Not strict: keywords Ajv does not know (vendor `x-…` ones, `example`)
 * are annotations, as the specification says, not mistakes. Formats are annotations too (2020-12's
 * default; no format vocabulary is bundled), so `format: email` checks nothing. A schema is never
 * added to the instance by its `$id`, so two registered types may use the same one, and no
 * remote `$ref` is ever fetched: one that does not resolve inside the schema refuses it.
 */
const OPTIONS = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
} as const;

/**
 * JSON Schema with Ajv: draft 2020-12, or draft-07 when the schema's `$schema` says so. Ajv
 * compiles a schema into a function (with `new Function`, which Lambda allows); the compiled
 * check is kept per key (a type's name and update time), at most one per registered type. Each
 * dialect's instance is made on its first use (some 15 ms: it compiles its meta-schemas), so a
 * container that never checks a schema (the `allow` check) never pays for it.
 */
export class AjvSchemaValidator implements SchemaValidator {
  private draft2020?: Ajv2020;
  private draft07?: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  schemaProblem(schemaJson: string): string | undefined {
    try {
      this.compile(schemaJson);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  mismatch(key: string, schemaJson: string, valueJson: string): string | undefined {
    let check = this.compiled.get(key);
    if (!check) {
      check = this.compile(schemaJson);
      setBounded(this.compiled, key, check, EVENT_TYPE_LIMITS.typesMax);
    }
    if (check(JSON.parse(valueJson))) return undefined;
    return describe(check.errors?.[0]);
  }

  /** The schema's check, or an Error saying why there is none. */
  private compile(schemaJson: string): ValidateFunction {
    const schema: unknown = JSON.parse(schemaJson);
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      throw new Error('must be a JSON Schema object');
    const dialect = (schema as AnySchemaObject).$schema;
    let ajv: Ajv | Ajv2020;
    if (dialect === undefined || DRAFT_2020_12.has(dialect)) ajv = this.draft2020 ??= new Ajv2020(OPTIONS);
    else if (DRAFT_07.has(dialect)) ajv = this.draft07 ??= new Ajv(OPTIONS);
    else throw new Error(`$schema must be draft 2020-12 (or none, which means it) or draft-07, not ${dialect}`);
    try {
      return ajv.compile(schema as AnySchemaObject);
    } finally {
      // The instance would keep every schema it ever compiled; the check needs nothing of it.
      ajv.removeSchema(schema as AnySchemaObject);
    }
  }
}

/** One refusal as a producer reads it: where (a JSON Pointer; nothing for the value itself) and what. */
function describe(error: ErrorObject | undefined): string {
  if (!error) return 'does not match';
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${error.instancePath ? `${error.instancePath} ` : ''}${error.message ?? 'does not match'}${extra}`;
}

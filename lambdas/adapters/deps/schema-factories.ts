import { AjvSchemaValidator } from '../ajv-schema-validator.ts';
import type { Factories } from './factory.ts';

/** JSON Schema checks of the event-type catalog: only the bundles of the functions that hold it (api, ingest) carry ajv. */
export const SCHEMA_FACTORIES: Factories<'schemaValidator'> = {
  schemaValidator: () => new AjvSchemaValidator(),
};

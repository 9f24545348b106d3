/**
 * JSON Schema, as the event-type catalog uses it: whether a schema can be used at all (when it
 * is registered) and whether a value matches it (an example when it is registered, a payload
 * when it is published). Schemas and values come as JSON text, as they are stored.
 */
export interface SchemaValidator {
  /** Why the schema (an object of draft 2020-12, or of draft-07 when its `$schema` says so) cannot be used, or undefined when it can. */
  schemaProblem(schemaJson: string): string | undefined;
  /**
   * The first way the value breaks the schema (`/amount must be number`), or undefined when it
   * matches. `key` names this version of the schema: the compiled check is kept under it, so a
   * schema is compiled once per container, not per value. Throws for a schema that schemaProblem refuses.
   */
  mismatch(key: string, schemaJson: string, valueJson: string): string | undefined;
}

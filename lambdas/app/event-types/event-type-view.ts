import type { EventTypeEntry } from '#domain/event-type-catalog.ts';
import type { EventTypeView } from '#app/schema/responses.ts';

/** A registered type as the API shows it: the schema and the example as JSON, null when absent. */
export function eventTypeView(entry: EventTypeEntry): EventTypeView {
  return {
    name: entry.name,
    description: entry.description,
    schema: entry.schemaJson === undefined ? null : (JSON.parse(entry.schemaJson) as Record<string, unknown>),
    example: entry.exampleJson === undefined ? null : (JSON.parse(entry.exampleJson) as unknown),
    deprecated: entry.deprecated,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

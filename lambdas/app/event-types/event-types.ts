import { EVENT_TYPE_LIMITS, type EventTypeEntry } from '#domain/event-type-catalog.ts';
import { iso } from '#domain/time.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError, NotFoundError, ValidationError } from '#app/errors.ts';
import type { PutEventTypeRequest } from './event-type-request.ts';

/** What registering and reading types uses (the api). */
export type EventTypeDeps = Pick<Deps, 'eventTypes' | 'schemaValidator' | 'clock'>;

/**
 * Registers `name` (already checked: parseEventTypeName), or replaces it whole. A schema must
 * compile and an example must match it; a new type past the catalog's bound is refused (409),
 * since publish reads the catalog whole. Nothing is stored on a refusal.
 */
export async function putEventType(
  deps: EventTypeDeps,
  name: string,
  request: PutEventTypeRequest,
): Promise<{ readonly kind: 'created' | 'replaced'; readonly entry: EventTypeEntry }> {
  const nowIso = iso(deps.clock.now());
  if (request.schemaJson !== undefined) {
    const problem = deps.schemaValidator.schemaProblem(request.schemaJson);
    if (problem !== undefined) throw new ValidationError('schema', `is not a JSON Schema Hookline can use: ${problem}`);
    if (request.exampleJson !== undefined) {
      // Keyed as publish keys this version of the type, so a warm api compiles it once.
      const mismatch = deps.schemaValidator.mismatch(`${name}@${nowIso}`, request.schemaJson, request.exampleJson);
      if (mismatch !== undefined) throw new ValidationError('example', `does not match the schema: ${mismatch}`);
    }
  }
  if (!(await deps.eventTypes.get(name)) && (await deps.eventTypes.count()) >= EVENT_TYPE_LIMITS.typesMax)
    throw new ConflictError(
      `the catalog holds ${EVENT_TYPE_LIMITS.typesMax} event types, the most it takes (publish reads it whole); delete one first`,
    );
  return deps.eventTypes.put({ name, ...request }, nowIso);
}

export async function getEventType(deps: Pick<EventTypeDeps, 'eventTypes'>, name: string): Promise<EventTypeEntry> {
  const entry = await deps.eventTypes.get(name);
  if (!entry) throw new NotFoundError('event type', name);
  return entry;
}

/** The catalog in name order, a page at a time: every caller reads all of it (types are not a tenant's). */
export function listEventTypes(
  deps: Pick<EventTypeDeps, 'eventTypes'>,
  request: PageRequest,
): Promise<Page<EventTypeEntry>> {
  return deps.eventTypes.list(request);
}

/** Removes the type from the catalog; events of it are published as unregistered ones from then on. */
export async function deleteEventType(deps: Pick<EventTypeDeps, 'eventTypes'>, name: string): Promise<EventTypeEntry> {
  const entry = await deps.eventTypes.delete(name);
  if (!entry) throw new NotFoundError('event type', name);
  return entry;
}

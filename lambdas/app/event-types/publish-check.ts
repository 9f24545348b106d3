import { catalogNeeded, eventTypeVerdict, type EventTypeVerdict } from '#domain/event-type-catalog.ts';
import type { Deps } from '#app/deps.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';

/**
 * What checking events against the catalog uses. Optional as a whole: a function without the
 * catalog (the notifier, whose operational events are Hookline's own types) publishes unchecked.
 */
export type CatalogCheckDeps = Partial<Pick<Deps, 'eventTypes' | 'schemaValidator' | 'eventTypeCheck'>>;

/**
 * The catalog's verdict on each event of a publish, in order, or undefined when nothing is to be
 * checked: under `allow` (the default) the catalog is not read at all, nor for a batch of
 * Hookline's own types only. Otherwise the whole catalog is read once (cached per container) and
 * each payload whose type has a schema is validated against it (compiled once per type version).
 */
export async function catalogVerdicts(
  deps: CatalogCheckDeps,
  requests: readonly PublishRequest[],
): Promise<readonly EventTypeVerdict[] | undefined> {
  const check = deps.eventTypeCheck ?? 'allow';
  const { eventTypes, schemaValidator } = deps;
  if (
    !eventTypes ||
    !schemaValidator ||
    !catalogNeeded(
      check,
      requests.map((r) => r.type),
    )
  )
    return undefined;
  const catalog = await eventTypes.catalog();
  return requests.map((request) => {
    const entry = catalog.get(request.type);
    const schemaError =
      entry?.schemaJson === undefined
        ? undefined
        : schemaValidator.mismatch(`${entry.name}@${entry.updatedAt}`, entry.schemaJson, request.payloadJson);
    return eventTypeVerdict(check, request.type, entry, schemaError);
  });
}

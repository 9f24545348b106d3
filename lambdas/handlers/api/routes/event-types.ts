import { parseEventTypeName, parsePutEventType } from '#app/event-types/event-type-request.ts';
import { eventTypeView } from '#app/event-types/event-type-view.ts';
import { deleteEventType, getEventType, listEventTypes, putEventType } from '#app/event-types/event-types.ts';
import { parsePageRequest } from '#app/parse.ts';
import { listed, ok, type Route } from '../route.ts';

/** The event-type catalog: the admin registers, replaces and deletes types; every caller reads them. */
export const EVENT_TYPE_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/event-types',
    access: 'tenant',
    run: async (deps, req) => listed(await listEventTypes(deps, parsePageRequest(req.query)), eventTypeView),
  },
  {
    method: 'GET',
    path: '/v1/event-types/{name}',
    access: 'tenant',
    run: async (deps, _req, p) => ok(eventTypeView(await getEventType(deps, parseEventTypeName(p.name!)))),
  },
  {
    // The name first: a refusal names it before anything in the body.
    method: 'PUT',
    path: '/v1/event-types/{name}',
    access: 'admin',
    run: async (deps, req, p) => {
      const name = parseEventTypeName(p.name!);
      const { kind, entry } = await putEventType(deps, name, parsePutEventType(req.body));
      return ok(eventTypeView(entry), kind === 'created' ? 201 : 200);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/event-types/{name}',
    access: 'admin',
    run: async (deps, _req, p) => ok(eventTypeView(await deleteEventType(deps, parseEventTypeName(p.name!)))),
  },
];

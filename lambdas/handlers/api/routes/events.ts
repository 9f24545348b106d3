import { parsePublishBatch, parsePublishRequest } from '#app/publish/publish-request.ts';
import { publish, publishBatch } from '#app/publish/publish.ts';
import { ok, type Route } from '../route.ts';

/** Publishing events, one or a batch. */
export const EVENT_ROUTES: readonly Route[] = [
  {
    method: 'POST', path: '/v1/events', access: 'admin',
    run: async (deps, req) => {
      const result = await publish(deps, parsePublishRequest(req.body));
      return ok({ eventId: result.eventId, deliveryIds: result.deliveryIds }, result.kind === 'accepted' ? 202 : 200);
    },
  },
  {
    // One result per event, in request order; 200 whatever each was (accepted or a duplicate).
    method: 'POST', path: '/v1/events/batch', access: 'admin',
    run: async (deps, req) => {
      const results = await publishBatch(deps, parsePublishBatch(req.body));
      return ok({ items: results.map((r) => ({ eventId: r.eventId, kind: r.kind, deliveryIds: r.deliveryIds })) });
    },
  },
];

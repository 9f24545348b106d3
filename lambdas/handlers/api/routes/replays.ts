import { parsePageRequest } from '#app/parse.ts';
import { getReplay, listReplays, startBulkReplay } from '#app/replay/bulk-replay.ts';
import { parseBulkReplayBody } from '#app/replay/replay-request.ts';
import { replayView } from '#app/replay/replay-view.ts';
import { listed, ok, type Route } from '../route.ts';

/** A bulk replay answers within this even when API Gateway would allow more; the rest continues on the replay schedule. */
const API_REPLAY_BUDGET_MS = 20_000;

/** Bulk replays: start, list, read. */
export const REPLAY_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/replays',
    access: 'admin',
    run: async (deps, req) => {
      const request = parseBulkReplayBody(req.body, 'admin');
      const deadlineMs = Math.min(req.deadlineMs ?? Infinity, deps.clock.now() + API_REPLAY_BUDGET_MS);
      const record = await startBulkReplay(deps, request, { deadlineMs });
      // 200 with the final counts when it finished within the request; 202 while it continues on the schedule.
      return ok(replayView(record), record.status === 'completed' ? 200 : 202);
    },
  },
  {
    method: 'GET',
    path: '/v1/replays',
    access: 'admin',
    run: async (deps, req) => listed(await listReplays(deps, parsePageRequest(req.query)), replayView),
  },
  {
    method: 'GET',
    path: '/v1/replays/{replayId}',
    access: 'admin',
    run: async (deps, _r, p) => ok(replayView(await getReplay(deps, p.replayId!))),
  },
];

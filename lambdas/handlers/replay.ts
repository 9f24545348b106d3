import type { Context } from 'aws-lambda';
import { deliveryView } from '#app/deliveries/delivery-view.ts';
import type { BulkReplayDeps } from '#app/replay/bulk-replay.ts';
import type { ReplayDeliveryDeps } from '#app/replay/replay-delivery.ts';
import { ValidationError } from '#app/errors.ts';
import { parseId, parseLimit } from '#app/parse.ts';
import {
  getReplay,
  listReplays,
  resumeBulkReplay,
  resumeStalledReplays,
  startBulkReplay,
} from '#app/replay/bulk-replay.ts';
import { replayDelivery } from '#app/replay/replay-delivery.ts';
import { parseBulkReplay } from '#app/replay/replay-request.ts';
import { replayView } from '#app/replay/replay-view.ts';
import { answer, deadlineOf, isScheduledEvent, payloadObject } from './invocation.ts';
import { withObservability, type Observability } from './observability.ts';

/** A bulk replay stops this long before the function's timeout, to write its checkpoint. */
const CHECKPOINT_MARGIN_MS = 30_000;

/**
 * The replay function, invoked by operators (`aws lambda invoke`, the CLI with `--aws`) and
 * every minute by the schedule:
 * - `{deliveryId}`: replay one delivery;
 * - `{createdFrom, createdTo, states?, subscriptionId?, tenantId?, dryRun?, windowSeconds?, operator?}`: bulk replay;
 * - `{action: 'resume' | 'get', replayId}`, `{action: 'list', limit?, cursor?}`: the audit trail;
 * - a scheduled event: resume every bulk replay whose worker stopped.
 */
export function createReplayHandler(deps: BulkReplayDeps & ReplayDeliveryDeps, obs: Observability) {
  return withObservability(async (event: unknown, context: Context) => {
    if (isScheduledEvent(event)) {
      const resumed = await resumeStalledReplays(deps, { deadlineMs: deadlineOf(context, CHECKPOINT_MARGIN_MS) });
      if (resumed.length > 0)
        obs.logger.info('resumed bulk replays', {
          replays: resumed.map((r) => ({ id: r.id, status: r.status, replayed: r.replayed })),
        });
      return { resumed: resumed.map(replayView) };
    }
    return answer(obs, async () => {
      const payload = payloadObject(event);
      const budget = { deadlineMs: deadlineOf(context, CHECKPOINT_MARGIN_MS) };
      const { action, ...rest } = payload;
      if (
        action === undefined &&
        typeof rest.deliveryId === 'string' &&
        Object.keys(rest).every((k) => k === 'deliveryId' || k === 'operator')
      ) {
        return deliveryView(await replayDelivery(deps, parseId(rest.deliveryId, 'dlv', 'deliveryId')));
      }
      if (action === undefined || action === 'bulk') {
        const record = await startBulkReplay(deps, parseBulkReplay(rest, 'invoke'), budget);
        obs.logger.info('bulk replay', {
          id: record.id,
          status: record.status,
          matched: record.matched,
          replayed: record.replayed,
          operator: record.operator,
        });
        return replayView(record);
      }
      if (action === 'resume')
        return replayView(await resumeBulkReplay(deps, parseId(rest.replayId, 'rpl', 'replayId'), budget));
      if (action === 'get') return replayView(await getReplay(deps, parseId(rest.replayId, 'rpl', 'replayId')));
      if (action === 'list') {
        const page = await listReplays(deps, {
          limit: parseLimit(rest.limit === undefined ? undefined : String(rest.limit)),
          ...(typeof rest.cursor === 'string' ? { cursor: rest.cursor } : {}),
        });
        return { items: page.items.map(replayView), nextCursor: page.nextCursor ?? null };
      }
      throw new ValidationError(
        'action',
        'must be bulk, resume, get or list (or give just {deliveryId} to replay one delivery)',
      );
    });
  }, obs);
}

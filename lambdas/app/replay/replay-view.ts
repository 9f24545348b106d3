import type { ReplayRecord } from '#domain/replay.ts';
import type { ReplayView } from '#app/schema/responses.ts';

/** The audit record as the API shows it: no lease or checkpoint internals; absent values are null. */
export function replayView(r: ReplayRecord): ReplayView {
  return {
    id: r.id,
    operator: r.operator,
    principal: r.principal,
    criteria: {
      states: r.criteria.states,
      subscriptionId: r.criteria.subscriptionId ?? null,
      tenantId: r.criteria.tenantId ?? null,
      createdFrom: r.criteria.createdFrom,
      createdTo: r.criteria.createdTo,
    },
    dryRun: r.dryRun,
    windowSeconds: r.windowSeconds,
    status: r.status,
    matched: r.matched,
    replayed: r.replayed,
    skipped: r.skipped,
    sample: r.dryRun ? (r.sample ?? []) : null,
    startedAt: r.startedAt,
    updatedAt: r.updatedAt,
    finishedAt: r.finishedAt ?? null,
  };
}

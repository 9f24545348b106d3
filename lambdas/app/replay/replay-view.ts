import type { ReplayRecord } from '#domain/replay.ts';
import type { ReplayView } from '#app/schema/responses.ts';

/** What a bulk replay selected, as its record and the replay.completed operational event show it; absent values are null. */
export function replayCriteriaView(c: ReplayRecord['criteria']) {
  return {
    states: [...c.states],
    subscriptionId: c.subscriptionId ?? null,
    tenantId: c.tenantId ?? null,
    createdFrom: c.createdFrom,
    createdTo: c.createdTo,
  };
}

/** The audit record as the API shows it: no lease or checkpoint internals; absent values are null. */
export function replayView(r: ReplayRecord): ReplayView {
  return {
    id: r.id,
    operator: r.operator,
    principal: r.principal,
    criteria: replayCriteriaView(r.criteria),
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

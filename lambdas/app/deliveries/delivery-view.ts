import type { AttemptRecord, Delivery } from '#domain/types.ts';

/** The public JSON shapes of the HTTP API (docs/design.md); absent values are null, never missing. */
export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    eventId: d.eventId,
    subscriptionId: d.subscriptionId,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.state === 'pending' ? d.nextAttemptAt : null,
    giveUpAt: d.giveUpAt,
    lastStatus: d.lastStatus ?? null,
    lastError: d.lastError ?? null,
    lastResponse: d.lastResponse ?? null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export function attemptView(a: AttemptRecord) {
  return {
    attempt: a.attempt,
    seq: a.seq,
    startedAt: a.startedAt,
    durationMs: a.durationMs,
    status: a.status ?? null,
    responseSnippet: a.responseSnippet ?? null,
    error: a.error ?? null,
  };
}

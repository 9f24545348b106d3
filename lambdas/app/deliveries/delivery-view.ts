import { STATE } from '#domain/states.ts';
import type { AttemptRecord, Delivery } from '#domain/types.ts';
import type { AttemptView, DeliveryView } from '#app/schema/responses.ts';

/** The public JSON shapes of the HTTP API (lambdas/app/schema/responses.ts); absent values are null, never missing. */
export function deliveryView(d: Delivery): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType ?? null,
    subscriptionId: d.subscriptionId,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    // Only a waiting delivery has a next attempt (a row an earlier version left in flight holds its claimed attempt's due time there).
    nextAttemptAt: d.state === STATE.pending ? d.nextAttemptAt : null,
    giveUpAt: d.giveUpAt,
    lastStatus: d.lastStatus ?? null,
    lastError: d.lastError ?? null,
    lastResponse: d.lastResponse ?? null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export function attemptView(a: AttemptRecord): AttemptView {
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

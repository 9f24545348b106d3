import type { AttemptRecord, Delivery, Subscription } from '#domain/types.ts';

/** The public JSON shapes of DESIGN.md's HTTP API; absent values are null, never missing. */
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

export function subscriptionView(s: Subscription, options: { withSecret?: boolean } = {}) {
  return {
    id: s.id,
    url: s.url,
    eventTypes: s.eventTypes,
    tenantId: s.tenantId ?? null,
    description: s.description ?? null,
    retryPolicy: s.retryPolicy ?? null,
    state: s.state,
    stateReason: s.stateReason ?? null,
    stateChangedAt: s.stateChangedAt,
    deadLetteringSince: s.deadLetteringSince ?? null,
    deadLetterStreak: s.deadLetterStreak ?? 0,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...(options.withSecret ? { secret: s.secrets[0] } : {}),
  };
}

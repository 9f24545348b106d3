import type { CreatedSubscription, Subscription } from '#domain/types.ts';

/** A subscription as the API shows it; the secret only when just created. Absent values are null. */
export function subscriptionView(s: Subscription | CreatedSubscription, options: { withSecret?: boolean } = {}) {
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
    // Only the value createSubscription returns has it; a stored subscription's secrets are sealed.
    ...(options.withSecret && 'secret' in s ? { secret: s.secret } : {}),
  };
}

import type { CreatedSubscription, ListedSubscription } from '#domain/types.ts';

/**
 * A subscription as the API shows it. Absent values are null. The secret only when just
 * created, and only an HMAC (`v1`) one: a `v1a` subscription's signing key never leaves
 * Hookline; its public key (the newest; all of them at `/secret`) is shown every time.
 */
export function subscriptionView(s: ListedSubscription | CreatedSubscription, options: { withSecret?: boolean } = {}) {
  const scheme = s.signatureScheme ?? 'v1';
  return {
    id: s.id,
    url: s.url,
    eventTypes: s.eventTypes,
    tenantId: s.tenantId ?? null,
    description: s.description ?? null,
    retryPolicy: s.retryPolicy ?? null,
    metadata: s.metadata ?? {},
    headers: s.headers ?? {},
    rateLimitPerSecond: s.rateLimitPerSecond ?? null,
    contactEmails: s.contactEmails ?? [],
    signatureScheme: scheme,
    publicKey: scheme === 'v1a' ? (s.publicKeys?.[0] ?? null) : null,
    state: s.state,
    stateReason: s.stateReason ?? null,
    stateChangedAt: s.stateChangedAt,
    deadLetteringSince: s.deadLetteringSince ?? null,
    deadLetterStreak: s.deadLetterStreak ?? 0,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    // Only the value createSubscription returns has it; a stored subscription's secrets are sealed.
    ...(options.withSecret && scheme === 'v1' && 'secret' in s ? { secret: s.secret } : {}),
  };
}

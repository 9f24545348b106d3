import type { RateLimit } from '#domain/rate-limit.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { RateLimitedError } from '#app/errors.ts';

/**
 * What a tenant's replays, Retry nows (app/replay/retry-now.ts) and test events are counted as:
 * one count per subscription and window, since each sends something now, ahead of any backoff.
 */
export const SEND_NOW_ACTION = { key: 'replay', what: 'replays, retries and test events' } as const;

/**
 * Counts one action of a tenant key against `limit`, per subscription and kind of action
 * (`replays`, `pauses and resumes`), before anything is changed: over the limit it is a
 * RateLimitedError (429 with Retry-After) and nothing happens. The admin key is not limited:
 * operators act on incidents, tenants on a button.
 */
export async function takeTenantAction(
  deps: Pick<Deps, 'rateLimiter' | 'clock'>,
  principal: Principal,
  action: { readonly key: string; readonly what: string; readonly limit: RateLimit; readonly subscriptionId: string },
): Promise<void> {
  if (principal.role !== 'tenant') return;
  const { limit, subscriptionId } = action;
  const decision = await deps.rateLimiter.take(`${action.key}:${subscriptionId}`, limit, deps.clock.now());
  if (decision.kind === 'limited') {
    throw new RateLimitedError(
      `at most ${limit.limit} ${action.what} per ${limit.windowSeconds} s for subscription ${subscriptionId}; retry in ${decision.retryAfterSeconds} s`,
      decision.retryAfterSeconds,
    );
  }
}

import { createHash } from 'node:crypto';
import { setBounded } from '#domain/bounded-map.ts';
import type { Principal } from '#app/access.ts';
import type { Grant } from '#app/credentials/bearer-grants.ts';
import { principalOf } from './principal.ts';

/** Checks the request's `Authorization` header: the principal it establishes, or undefined. */
export type Authenticate = (authorization: string | undefined) => Promise<Principal | undefined>;

/** Decisions a container keeps: one per live credential a client uses, far above what one container serves. */
const MAX_CACHED_GRANTS = 1000;

/**
 * The api's own check of bearer credentials when no API Gateway authorizer stands in front of
 * it (the Function URL entry, docs/aws.md "API type"): the same rule as the authorizer
 * (app/credentials/bearer-grants.ts), and the same cache API Gateway keeps of the authorizer's
 * answers, a grant per credential for `cacheMs`. So a busy key costs one lookup per container
 * per `cacheMs` (a tenant key's 1 read unit), and a revoked one stops within it, as behind API
 * Gateway. Refusals are not cached: each costs its lookup again, and a credential minted a
 * moment after a refused try works at once. The cache is keyed on a digest, not the key itself.
 */
export function inProcessAuthenticator(
  grantFor: (authorization: string | undefined) => Promise<Grant | undefined>,
  cacheMs: number,
  now: () => number = Date.now,
): Authenticate {
  const cache = new Map<string, { readonly principal: Principal; readonly untilMs: number }>();
  return async (authorization) => {
    if (!authorization) return undefined;
    const id = createHash('sha256').update(authorization).digest('base64url');
    const cached = cache.get(id);
    if (cached && now() < cached.untilMs) return cached.principal;
    const principal = principalOf((await grantFor(authorization))?.context);
    if (principal) setBounded(cache, id, { principal, untilMs: now() + cacheMs }, MAX_CACHED_GRANTS);
    else cache.delete(id);
    return principal;
  };
}

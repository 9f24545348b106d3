import { createHash, timingSafeEqual } from 'node:crypto';
import { portalAccessOf } from '#domain/portal-session.ts';
import { portalSession } from '#app/portal/portal-sessions.ts';
import { tenantKey } from '#app/tenants/tenants.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { KeySource } from '#ports/key-source.ts';
import type { PortalSessionStore } from '#ports/portal-session-store.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares keys through fixed-length digests so timing says nothing about the key. */
export function keyMatches(offered: string, expected: string): boolean {
  return expected.length > 0 && timingSafeEqual(digest(offered), digest(expected));
}

/**
 * What a granted bearer credential establishes, as strings: API Gateway passes an authorizer's
 * context to the api this way, and the api reads the principal back from it
 * (handlers/api/handler.ts principalOf), whichever of the two checked the key.
 */
export type GrantContext = Readonly<Record<string, string>>;

export interface Grant {
  readonly principalId: string;
  readonly context: GrantContext;
}

/** Where a bearer credential is looked up: the admin key always, tenant keys and portal sessions where given. */
export interface CredentialSources {
  readonly adminKey: KeySource;
  readonly tenantKeys?: ApiKeyStore;
  readonly portalSessions?: PortalSessionStore;
  readonly now?: () => number;
}

/**
 * `Authorization: Bearer <key>` → the grant it carries, or undefined. The one rule of who a
 * credential is, used by the Lambda authorizer behind API Gateway (handlers/authorizer.ts) and by
 * the api itself behind a Function URL (handlers/api/in-process-auth.ts). The deployment's admin
 * key gives `admin`; a key minted for a tenant (`hk_tenant_…`, looked up by its hash) gives
 * `tenant` with its tenant id; a revoked or expired one is refused like an unknown one. A
 * customer portal session token (`hk_portal_…`, looked up by its session id) gives `tenant` too,
 * marked `portal` with its link's access level and limited to one subscription when its link
 * was; it ends with its link or its revocation, like a tenant key. Nothing is cached here.
 */
export function bearerGrants(
  sources: CredentialSources,
): (authorization: string | undefined) => Promise<Grant | undefined> {
  const now = sources.now ?? Date.now;
  return async (authorization): Promise<Grant | undefined> => {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(authorization ?? '');
    if (!match) return undefined;
    const key = match[1]!;
    if (keyMatches(key, await sources.adminKey.adminKey())) return { principalId: 'admin', context: { role: 'admin' } };
    const tenant = sources.tenantKeys ? await tenantKey(sources.tenantKeys, key, now()) : undefined;
    if (tenant)
      return {
        principalId: `tenant:${tenant.tenantId}`,
        context: { role: 'tenant', tenantId: tenant.tenantId, keyId: tenant.keyId },
      };
    const session = sources.portalSessions ? await portalSession(sources.portalSessions, key, now()) : undefined;
    if (!session) return undefined;
    // Context values are strings: `portal` is the level, an empty subscriptionId is "no limit" (handlers/api/handler.ts principalOf).
    return {
      principalId: `tenant:${session.tenantId}`,
      context: {
        role: 'tenant',
        tenantId: session.tenantId,
        keyId: session.id,
        portal: portalAccessOf(session.access),
        subscriptionId: session.subscriptionId ?? '',
      },
    };
  };
}

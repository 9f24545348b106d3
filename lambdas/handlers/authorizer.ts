import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { tenantKey } from '#app/tenants/tenants.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { KeySource } from '#ports/key-source.ts';
import { withObservability, type Observability } from './observability.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares keys through fixed-length digests so timing says nothing about the key. */
export function keyMatches(offered: string, expected: string): boolean {
  return expected.length > 0 && timingSafeEqual(digest(offered), digest(expected));
}

/** "Unauthorized" is the message API Gateway turns into a 401. */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * API Gateway TOKEN authorizer: `Authorization: Bearer <key>` → principal with a role. The
 * deployment's admin key gives `admin`; a key minted for a tenant (`hk_tenant_…`, looked up by
 * its hash when `tenantKeys` is given) gives `tenant` with its tenant id, and the API scopes
 * every route to that tenant. A revoked or expired tenant key is refused like an unknown one;
 * tenant keys are looked up on every call (no cache here), so only API Gateway's authorizer
 * cache (30 s, lib/constructs/api.ts) delays a revocation.
 */
export function createAuthorizerHandler(keys: KeySource, obs: Observability, tenantKeys?: ApiKeyStore, now: () => number = Date.now) {
  return withObservability(async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(event.authorizationToken ?? '');
    if (!match) throw new Error(UNAUTHORIZED);
    const key = match[1]!;
    // Allow every route of this stage so API Gateway's authorizer cache serves the next call.
    const [arnPrefix, stage] = event.methodArn.split('/');
    const allow = (principalId: string, context: Record<string, string>): APIGatewayAuthorizerResult => ({
      principalId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnPrefix}/${stage}/*` }],
      },
      context,
    });
    if (keyMatches(key, await keys.adminKey())) return allow('admin', { role: 'admin' });
    const tenant = tenantKeys ? await tenantKey(tenantKeys, key, now()) : undefined;
    if (tenant) return allow(`tenant:${tenant.tenantId}`, { role: 'tenant', tenantId: tenant.tenantId, keyId: tenant.keyId });
    throw new Error(UNAUTHORIZED);
  }, obs);
}

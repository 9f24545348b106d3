import { createHash, timingSafeEqual } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { portalAccessOf } from '#domain/portal-session.ts';
import { portalSession } from '#app/portal/portal-sessions.ts';
import { tenantKey } from '#app/tenants/tenants.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { PortalSessionStore } from '#ports/portal-session-store.ts';
import type { KeySource } from '#ports/key-source.ts';
import { withObservability, type Observability } from './observability.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares keys through fixed-length digests so timing says nothing about the key. */
export function keyMatches(offered: string, expected: string): boolean {
  return expected.length > 0 && timingSafeEqual(digest(offered), digest(expected));
}

/** "Unauthorized" is the message a REST API TOKEN authorizer throws for API Gateway to answer 401. */
export const UNAUTHORIZED = 'Unauthorized';

/** What the API handler reads back as the principal (handlers/api/handler.ts principalOf). */
export type AuthorizerContext = Readonly<Record<string, string>>;
/** An HTTP API simple response: `context` reaches the API as `requestContext.authorizer.lambda`. */
export type SimpleAuthorizerResult = APIGatewaySimpleAuthorizerResult & { readonly context?: AuthorizerContext };
export type AuthorizerEvent = APIGatewayTokenAuthorizerEvent | APIGatewayRequestAuthorizerEventV2;

/** REST APIs send a TOKEN event and want a policy; HTTP APIs send a v2 REQUEST event and want a simple response. */
export interface AuthorizerHandler {
  (event: APIGatewayTokenAuthorizerEvent, context: Context): Promise<APIGatewayAuthorizerResult>;
  // Last, so that inferring from the handler (local/runtime.ts wraps it) sees the HTTP API shape the local gateway speaks.
  (event: APIGatewayRequestAuthorizerEventV2, context: Context): Promise<SimpleAuthorizerResult>;
}

interface Grant {
  readonly principalId: string;
  readonly context: AuthorizerContext;
}

/**
 * API Gateway Lambda authorizer: `Authorization: Bearer <key>` → principal with a role. The
 * deployment's admin key gives `admin`; a key minted for a tenant (`hk_tenant_…`, looked up by
 * its hash when `tenantKeys` is given) gives `tenant` with its tenant id, and the API scopes
 * every route to that tenant. A revoked or expired tenant key is refused like an unknown one;
 * tenant keys are looked up on every call (no cache here), so only API Gateway's authorizer
 * cache (30 s, lib/constructs/api.ts) delays a revocation. A customer portal session token
 * (`hk_portal_…`, looked up by its session id when `portalSessions` is given) gives `tenant`
 * too, marked `portal` with its link's access level (the router allows it that level's routes)
 * and limited to one subscription when its link was; it ends with its link or its revocation,
 * like a tenant key.
 */
export function createAuthorizerHandler(
  keys: KeySource,
  obs: Observability,
  tenantKeys?: ApiKeyStore,
  now: () => number = Date.now,
  portalSessions?: PortalSessionStore,
): AuthorizerHandler {
  const grantFor = async (authorization: string | undefined): Promise<Grant | undefined> => {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(authorization ?? '');
    if (!match) return undefined;
    const key = match[1]!;
    if (keyMatches(key, await keys.adminKey())) return { principalId: 'admin', context: { role: 'admin' } };
    const tenant = tenantKeys ? await tenantKey(tenantKeys, key, now()) : undefined;
    if (tenant)
      return {
        principalId: `tenant:${tenant.tenantId}`,
        context: { role: 'tenant', tenantId: tenant.tenantId, keyId: tenant.keyId },
      };
    const session = portalSessions ? await portalSession(portalSessions, key, now()) : undefined;
    if (session) {
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
    }
    return undefined;
  };

  // A refusal is an answer, not a failure: HTTP API turns a thrown error into a 500.
  const simple = async (event: APIGatewayRequestAuthorizerEventV2): Promise<SimpleAuthorizerResult> => {
    const grant = await grantFor(event.headers?.authorization);
    return grant ? { isAuthorized: true, context: grant.context } : { isAuthorized: false };
  };

  const token = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const grant = await grantFor(event.authorizationToken);
    if (!grant) throw new Error(UNAUTHORIZED);
    // Allow every route of this stage so API Gateway's authorizer cache serves the next call.
    const [arnPrefix, stage] = event.methodArn.split('/');
    return {
      principalId: grant.principalId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnPrefix}/${stage}/*` }],
      },
      context: { ...grant.context },
    };
  };

  return withObservability(
    async (event: AuthorizerEvent): Promise<APIGatewayAuthorizerResult | SimpleAuthorizerResult> =>
      'version' in event && event.version === '2.0' ? simple(event) : token(event as APIGatewayTokenAuthorizerEvent),
    obs,
  ) as unknown as AuthorizerHandler;
}

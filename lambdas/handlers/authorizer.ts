import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { bearerGrants, type GrantContext } from '#app/credentials/bearer-grants.ts';
import type { ApiKeyStore } from '#ports/api-key-store.ts';
import type { PortalSessionStore } from '#ports/portal-session-store.ts';
import type { KeySource } from '#ports/key-source.ts';
import { withObservability, type Observability } from './observability.ts';

export { keyMatches } from '#app/credentials/bearer-grants.ts';

/** "Unauthorized" is the message a REST API TOKEN authorizer throws for API Gateway to answer 401. */
export const UNAUTHORIZED = 'Unauthorized';

/** What the API handler reads back as the principal (handlers/api/handler.ts principalOf). */
export type AuthorizerContext = GrantContext;
/** An HTTP API simple response: `context` reaches the API as `requestContext.authorizer.lambda`. */
export type SimpleAuthorizerResult = APIGatewaySimpleAuthorizerResult & { readonly context?: AuthorizerContext };
export type AuthorizerEvent = APIGatewayTokenAuthorizerEvent | APIGatewayRequestAuthorizerEventV2;

/** REST APIs send a TOKEN event and want a policy; HTTP APIs send a v2 REQUEST event and want a simple response. */
export interface AuthorizerHandler {
  (event: APIGatewayTokenAuthorizerEvent, context: Context): Promise<APIGatewayAuthorizerResult>;
  // Last, so that inferring from the handler (local/runtime.ts wraps it) sees the HTTP API shape the local gateway speaks.
  (event: APIGatewayRequestAuthorizerEventV2, context: Context): Promise<SimpleAuthorizerResult>;
}

/**
 * API Gateway Lambda authorizer: `Authorization: Bearer <key>` → principal with a role, by the
 * one rule of app/credentials/bearer-grants.ts. Tenant keys are looked up on every call (no
 * cache here), so only API Gateway's authorizer cache (30 s, lib/constructs/api.ts) delays a
 * revocation.
 */
export function createAuthorizerHandler(
  keys: KeySource,
  obs: Observability,
  tenantKeys?: ApiKeyStore,
  now: () => number = Date.now,
  portalSessions?: PortalSessionStore,
): AuthorizerHandler {
  const grantFor = bearerGrants({
    adminKey: keys,
    now,
    ...(tenantKeys ? { tenantKeys } : {}),
    ...(portalSessions ? { portalSessions } : {}),
  });

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

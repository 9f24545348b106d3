import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ADMIN, type Principal } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { rejectRepeatedParameters } from '#app/parse.ts';
import { withObservability, type Observability } from '../observability.ts';
import { errorResponse, json } from './http.ts';
import { route } from './router.ts';

/** Time kept back from the Lambda's remaining time to write the last checkpoint and answer. */
const RESPONSE_MARGIN_MS = 5000;

/** The principal the authorizer put in the request context (API Gateway passes context values as strings). */
export function principalOf(authorizer: Record<string, unknown> | null | undefined): Principal | undefined {
  if (authorizer?.role === 'admin') return ADMIN;
  if (authorizer?.role === 'tenant' && typeof authorizer.tenantId === 'string' && typeof authorizer.keyId === 'string') {
    return { role: 'tenant', tenantId: authorizer.tenantId, keyId: authorizer.keyId };
  }
  return undefined;
}

/**
 * API Gateway (REST, proxy integration) → router. The authorizer has already checked the key;
 * errors become responses by the error table (handlers/error-map.ts), and only the ones it does
 * not know are logged as failures.
 */
export function createApiHandler(deps: FunctionDeps<'api'>, obs: Observability) {
  return withObservability(async (event: APIGatewayProxyEvent, context): Promise<APIGatewayProxyResult> => {
    try {
      const path = event.path;
      // With `apiAuth: 'iam'` there is no authorizer: API Gateway has already checked the SigV4
      // signature and the caller's execute-api permission, which is the admin's level of trust.
      // Without either, the router answers only public routes (GET /health).
      const principal = principalOf(event.requestContext?.authorizer) ?? (event.requestContext?.identity?.userArn ? ADMIN : undefined);
      const body = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      // Only once a caller is established, so an unauthenticated one still gets the 401 and learns nothing else.
      if (principal) rejectRepeatedParameters(event.multiValueQueryStringParameters);
      const query = Object.fromEntries(Object.entries(event.queryStringParameters ?? {}));
      const deadlineMs = Date.now() + Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS);
      const res = await route(deps, { method: event.httpMethod, path, query, body, deadlineMs, principal });
      return json(res.status, res.body);
    } catch (error) {
      const { response, unexpected } = errorResponse(error);
      if (unexpected) obs.logger.error('request failed', { path: event.path, method: event.httpMethod, error: error as Error });
      return response;
    }
  }, obs);
}

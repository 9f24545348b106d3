import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ServiceDeps } from '#app/deps.ts';
import { UnauthorizedError } from '#app/errors.ts';
import { withObservability, type Observability } from '../observability.ts';
import { errorResponse, json } from './http.ts';
import { route } from './router.ts';

/** API Gateway (REST, proxy integration) → router. The authorizer has already checked the key. */
export function createApiHandler(deps: ServiceDeps, obs: Observability) {
  return withObservability(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    try {
      const path = event.path;
      if (path !== '/health' && event.requestContext?.authorizer?.role !== 'admin') throw new UnauthorizedError();
      const body = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      const query = Object.fromEntries(Object.entries(event.queryStringParameters ?? {}));
      const res = await route(deps, { method: event.httpMethod, path, query, body });
      return json(res.status, res.body);
    } catch (error) {
      const { response, unexpected } = errorResponse(error);
      if (unexpected) obs.logger.error('request failed', { path: event.path, method: event.httpMethod, error: error as Error });
      return response;
    }
  }, obs);
}

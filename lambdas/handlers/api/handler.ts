import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import { ADMIN, type Principal } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import type { ApiRequest } from './route.ts';
import { rejectRepeatedParameters } from '#app/parse.ts';
import { withObservability, type Observability } from '../observability.ts';
import { errorResponse, json } from './http.ts';
import { route } from './router.ts';
import type { Authenticate } from './in-process-auth.ts';
import { principalOf } from './principal.ts';

export { principalOf } from './principal.ts';

/** Time kept back from the Lambda's remaining time to write the last checkpoint and answer. */
const RESPONSE_MARGIN_MS = 5000;

/** A REST API (payload 1.0) or HTTP API (payload 2.0) proxy event; v2 is told apart by `version: '2.0'`. */
export type ApiGatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** What either payload version carries for the router, before any check. */
interface GatewayRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string | undefined>;
  /** Every value of every query parameter, to refuse a repeated one rather than keep one. */
  readonly parameters: Record<string, readonly string[] | undefined> | null | undefined;
  readonly body: string | null;
  readonly headers: Record<string, string | undefined>;
  readonly principal: Principal | undefined;
  /** Where the API was reached: scheme, host and stage prefix. */
  readonly baseUrl: string | undefined;
}

/** Header names lower-cased (REST API payloads keep the caller's case; HTTP API payloads lower-case them). */
const lowerCased = (
  headers: Record<string, string | undefined> | null | undefined,
): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));

const decoded = (body: string | null | undefined, base64: boolean): string | null =>
  body && base64 ? Buffer.from(body, 'base64').toString('utf8') : (body ?? null);

/**
 * The API's own base URL as this request reached it: API Gateway always serves https and says so
 * in X-Forwarded-Proto (the local gateway says http); a named stage is part of the path.
 */
function baseUrlOf(
  domainName: string | undefined,
  stage: string | undefined,
  headers: Record<string, string | undefined>,
): string | undefined {
  if (!domainName) return undefined;
  const scheme = headers['x-forwarded-proto'] === 'http' ? 'http' : 'https';
  return `${scheme}://${domainName}${stage && stage !== '$default' ? `/${stage}` : ''}`;
}

// With `apiAuth: 'iam'` there is no Lambda authorizer: API Gateway has already checked the SigV4
// signature and the caller's execute-api permission, which is the admin's level of trust.
// Without either, the router answers only public routes (GET /health).
function fromRest(event: APIGatewayProxyEvent): GatewayRequest {
  return {
    method: event.httpMethod,
    path: event.path,
    query: { ...event.queryStringParameters },
    parameters: event.multiValueQueryStringParameters,
    body: decoded(event.body, event.isBase64Encoded),
    headers: lowerCased(event.headers),
    principal:
      principalOf(event.requestContext?.authorizer) ?? (event.requestContext?.identity?.userArn ? ADMIN : undefined),
    baseUrl: baseUrlOf(event.requestContext?.domainName, event.requestContext?.stage, lowerCased(event.headers)),
  };
}

function fromHttp(event: APIGatewayProxyEventV2): GatewayRequest {
  // Simple responses put the authorizer's context under `lambda`; IAM authorization fills `iam`.
  const authorizer = (
    event.requestContext as
      | { authorizer?: { lambda?: Record<string, unknown> | null; iam?: { userArn?: string } | null } }
      | undefined
  )?.authorizer;
  // queryStringParameters joins a repeated parameter's values with commas: only the raw string tells.
  const raw = new URLSearchParams(event.rawQueryString ?? '');
  return {
    method: event.requestContext?.http?.method,
    path: event.rawPath,
    query: { ...event.queryStringParameters },
    parameters: Object.fromEntries([...new Set(raw.keys())].map((name) => [name, raw.getAll(name)])),
    body: decoded(event.body, event.isBase64Encoded),
    headers: lowerCased(event.headers),
    principal: principalOf(authorizer?.lambda) ?? (authorizer?.iam?.userArn ? ADMIN : undefined),
    baseUrl: baseUrlOf(event.requestContext?.domainName, event.requestContext?.stage, lowerCased(event.headers)),
  };
}

/**
 * The request with the principal the api's own check establishes (a Function URL entry): the
 * IAM caller Lambda has checked, else the bearer credential's, and never an authorizer context,
 * which no authorizer wrote here.
 */
async function authenticated(
  req: GatewayRequest,
  event: ApiGatewayEvent,
  authenticate: Authenticate,
): Promise<GatewayRequest> {
  const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: string } | null } } | undefined)?.authorizer
    ?.iam;
  return { ...req, principal: iam?.userArn ? ADMIN : await authenticate(req.headers.authorization) };
}

const isHttpApi = (event: ApiGatewayEvent): event is APIGatewayProxyEventV2 =>
  (event as { version?: string }).version === '2.0';

/**
 * API Gateway (proxy integration, REST or HTTP API) → router. The authorizer has already checked
 * the key; errors become responses by the error table (handlers/error-map.ts), and only the ones
 * it does not know are logged as failures. Both payload versions take the same response object.
 */
/**
 * What a deployment hands the api beyond its deps: the dashboard's files, and the caught mail,
 * which only the local runtime keeps (no variable of the api's environment provides it).
 */
export interface ApiHandlerOptions extends Pick<ApiRequest, 'dashboard' | 'mailbox'> {
  /**
   * The api checks bearer credentials itself (its entry is a Lambda Function URL, with no API
   * Gateway authorizer in front): the principal comes from this and never from the request
   * context, except an IAM caller's, whom Lambda has checked (a Function URL with AWS_IAM auth).
   */
  readonly authenticate?: Authenticate;
}

export function createApiHandler(deps: FunctionDeps<'api'>, obs: Observability, options: ApiHandlerOptions = {}) {
  return withObservability(async (event: ApiGatewayEvent, context): Promise<APIGatewayProxyResult> => {
    const parsed = isHttpApi(event) ? fromHttp(event) : fromRest(event);
    try {
      const req = options.authenticate ? await authenticated(parsed, event, options.authenticate) : parsed;
      // Only once a caller is established, so an unauthenticated one still gets the 401 and learns nothing else.
      if (req.principal) rejectRepeatedParameters(req.parameters);
      const deadlineMs = Date.now() + Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS);
      const res = await route(deps, {
        method: req.method,
        path: req.path,
        query: req.query,
        body: req.body,
        headers: req.headers,
        deadlineMs,
        principal: req.principal,
        ...(req.baseUrl ? { baseUrl: req.baseUrl } : {}),
        ...(options.dashboard ? { dashboard: options.dashboard } : {}),
        ...(options.mailbox ? { mailbox: options.mailbox } : {}),
      });
      if (res.raw)
        return {
          statusCode: res.status,
          headers: { 'content-type': res.raw.contentType, ...res.raw.headers },
          body: String(res.body),
        };
      return json(res.status, res.body);
    } catch (error) {
      const { response, unexpected } = errorResponse(error);
      if (unexpected)
        obs.logger.error('request failed', { path: parsed.path, method: parsed.method, error: error as Error });
      return response;
    }
  }, obs);
}

import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { ROUTES } from '#handlers/api/router.ts';
import type { SimpleAuthorizerResult } from '#handlers/authorizer.ts';
import { lambdaContext, type Invoke } from './lambda-context.ts';
import { CLOSING, listen, readBody } from './http-server.ts';

/** The routes the stack leaves open (GET /health, GET /openapi.json): the router's public ones. */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set(
  ROUTES.filter((r) => r.access === 'public').map((r) => `${r.method} ${r.path}`),
);

/** API Gateway's own payload limit; the API itself refuses events over 256 KiB with a clear 400. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface GatewayOptions {
  readonly port: number;
  readonly api: Invoke<APIGatewayProxyEventV2, APIGatewayProxyResult>;
  /**
   * API Gateway's authorizer (the stack's `apiType: 'http'`), run before the api on every route
   * but the public ones. Without it the gateway stands in for a Function URL (the stack's default):
   * every request reaches the api, which checks the key itself.
   */
  readonly authorizer?: Invoke<APIGatewayRequestAuthorizerEventV2, SimpleAuthorizerResult>;
  readonly onError: (error: unknown) => void;
}

export interface Gateway {
  readonly url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, result: APIGatewayProxyResult, extraHeaders: Record<string, string> = {}): void {
  res.writeHead(result.statusCode, { ...(result.headers as Record<string, string>), ...extraHeaders });
  res.end(result.body);
}

const errorResult = (statusCode: number, code: string, message: string): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ error: { code, message } }),
});

const refused = () => errorResult(401, 'unauthorized', 'a valid Authorization: Bearer <key> header is required');

/** What the authorizer and the API both see of a request, as HTTP API (payload 2.0) spells it. */
function requestParts(req: IncomingMessage, url: URL, behindGateway: boolean) {
  const method = req.method ?? 'GET';
  const path = url.pathname;
  const headers = Object.fromEntries(
    Object.entries(req.headers)
      .filter(([k]) => k !== 'cookie')
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
  );
  // As API Gateway does, say which scheme the caller used (plain http here): links the API builds back to itself use it.
  headers['x-forwarded-proto'] = 'http';
  // As HTTP API does: a repeated parameter's values joined by commas, the raw string alongside.
  const names = [...new Set(url.searchParams.keys())];
  const query = names.length
    ? Object.fromEntries(names.map((k) => [k, url.searchParams.getAll(k).join(',')]))
    : undefined;
  // A Function URL has one route, `$default`; API Gateway names the one it matched.
  const routeKey = !behindGateway
    ? '$default'
    : path === '/health' && method === 'GET'
      ? 'GET /health'
      : path.startsWith('/v1/')
        ? 'ANY /v1/{proxy+}'
        : '$default';
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: query,
    pathParameters: routeKey === 'ANY /v1/{proxy+}' ? { proxy: path.slice('/v1/'.length) } : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: req.headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
  };
}

/**
 * The local stand-in for what serves the API on AWS, with a payload 2.0 event either way.
 *
 * - A Function URL (the stack's default, no `authorizer`): every request reaches the api handler,
 *   which checks the key itself (handlers/api/in-process-auth.ts) and answers 401 in Hookline's
 *   error shape.
 * - API Gateway's HTTP API (`apiType: 'http'`): the same REQUEST authorizer runs first (except on
 *   the public routes, as in the stack), then the api gets the authorizer's context under
 *   `authorizer.lambda`. The key is checked before a byte of the body is read (a client that asks
 *   for `100 Continue` gets it only then), and a refused request is answered at once and its
 *   connection closed. Refusals answer 401 in Hookline's error shape; on AWS, HTTP API answers a
 *   missing header 401 and a refused key 403, each as `{"message": ...}` (clients treat both alike).
 *
 * An oversized body is refused at once either way, and its connection closed.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const handle = async (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const parts = requestParts(req, url, options.authorizer !== undefined);
      let authorizer: { lambda: Record<string, string> } | undefined;
      if (options.authorizer && !PUBLIC_ROUTES.has(`${req.method ?? 'GET'} ${url.pathname}`)) {
        const authorization = req.headers.authorization;
        // HTTP API refuses a request without its identity source before invoking the authorizer.
        if (!authorization) return send(res, refused(), CLOSING);
        const { method, path } = parts.requestContext.http;
        const event = {
          ...parts,
          type: 'REQUEST',
          routeArn: `arn:aws:execute-api:us-east-1:000000000000:local/$default/${method}${path}`,
          identitySource: [authorization],
        };
        // A refusal is `isAuthorized: false`; a throw is a fault, answered 500 below as HTTP API does.
        const result = await options.authorizer(
          event as APIGatewayRequestAuthorizerEventV2,
          lambdaContext('authorizer'),
        );
        if (!result.isAuthorized) return send(res, refused(), CLOSING);
        authorizer = { lambda: { ...result.context } };
      }
      if (expectsContinue) res.writeContinue();
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === undefined)
        return send(
          res,
          errorResult(413, 'payload_too_large', `request body must be at most ${MAX_BODY_BYTES} bytes`),
          CLOSING,
        );
      const event = {
        ...parts,
        body: body === '' ? undefined : body,
        isBase64Encoded: false,
        requestContext: { ...parts.requestContext, authorizer },
      };
      send(res, await options.api(event as APIGatewayProxyEventV2, lambdaContext('api')));
    } catch (error) {
      options.onError(error);
      if (!res.headersSent)
        send(res, errorResult(500, 'internal_error', 'the local gateway failed to handle the request'));
    }
  };
  const server = http.createServer((req, res) => void handle(req, res, false));
  // Without this listener Node answers `100 Continue` itself, before the key is checked.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => void handle(req, res, true));
  server.keepAliveTimeout = 5000;
  return listen(server, options.port);
}

import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { lambdaContext, type Invoke } from './lambda-context.ts';
import { CLOSING, listen, readBody } from './http-server.ts';

/** API Gateway's own payload limit; the API itself refuses events over 256 KiB with a clear 400. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface GatewayOptions {
  readonly port: number;
  readonly api: Invoke<APIGatewayProxyEvent, APIGatewayProxyResult>;
  readonly authorizer: Invoke<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>;
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

/**
 * The local stand-in for API Gateway (REST, proxy integration): the same TOKEN authorizer
 * runs first (except on /health, as in the stack), then the API handler gets a real
 * APIGatewayProxyEvent. The key is checked before a byte of the body is read (a client that
 * asks for `100 Continue` gets it only then), and a refused or oversized request is answered
 * at once and its connection closed, so an unauthenticated client cannot make it read megabytes.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const handle = async (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      let authorizer: Record<string, unknown> | undefined;
      if (url.pathname !== '/health') {
        try {
          const auth = await options.authorizer(
            { type: 'TOKEN', authorizationToken: req.headers.authorization ?? '', methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/local/${method}${url.pathname}` },
            lambdaContext('authorizer'),
          );
          authorizer = { principalId: auth.principalId, ...(auth.context ?? {}) };
        } catch {
          return send(res, errorResult(401, 'unauthorized', 'a valid Authorization: Bearer <key> header is required'), CLOSING);
        }
      }
      if (expectsContinue) res.writeContinue();
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === undefined) return send(res, errorResult(413, 'payload_too_large', `request body must be at most ${MAX_BODY_BYTES} bytes`), CLOSING);
      const query = Object.fromEntries(url.searchParams);
      const event = {
        resource: '/{proxy+}',
        path: url.pathname,
        httpMethod: method,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')])),
        multiValueHeaders: {},
        queryStringParameters: Object.keys(query).length ? query : null,
        // As API Gateway does: every value of a repeated parameter, which the API refuses rather than keep one.
        multiValueQueryStringParameters: Object.keys(query).length ? Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)])) : null,
        pathParameters: { proxy: url.pathname.slice(1) },
        stageVariables: null,
        body: body === '' ? null : body,
        isBase64Encoded: false,
        requestContext: { requestId: randomUUID(), authorizer, httpMethod: method, path: url.pathname, stage: 'local' },
      } as unknown as APIGatewayProxyEvent;
      send(res, await options.api(event, lambdaContext('api')));
    } catch (error) {
      options.onError(error);
      if (!res.headersSent) send(res, errorResult(500, 'internal_error', 'the local gateway failed to handle the request'));
    }
  };
  const server = http.createServer((req, res) => void handle(req, res, false));
  // Without this listener Node answers `100 Continue` itself, before the key is checked.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => void handle(req, res, true));
  server.keepAliveTimeout = 5000;
  return listen(server, options.port);
}

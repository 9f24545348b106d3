import http, { type ServerResponse } from 'node:http';
import type { FunctionKey } from '#config/topology.ts';
import { lambdaContext, type Invoke } from './lambda-context.ts';
import { listen, readBody } from './http-server.ts';

/** The Lambda Invoke API's largest synchronous payload. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

export interface LambdaApiOptions {
  /** The functions operators invoke directly, by topology key. */
  readonly functions: Readonly<Partial<Record<FunctionKey, Invoke<unknown, unknown>>>>;
  readonly onError: (error: unknown) => void;
  readonly host?: string;
}

export interface LambdaApi {
  readonly url: string;
  close(): Promise<void>;
}

/** `replay`, `hookline-local-replay`, or an ARN ending in either: the local function it names. */
export function functionKeyOf(name: string, known: readonly string[]): FunctionKey | undefined {
  const last = decodeURIComponent(name).split(':').pop() ?? '';
  const key = last.replace(/^hookline-local-/, '');
  return known.includes(key) ? (key as FunctionKey) : undefined;
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

/**
 * A local stand-in for the Lambda Invoke API (`POST /2015-03-31/functions/{name}/invocations`),
 * so the CLI reaches the local replay and archiver functions through the same `@aws-sdk/client-lambda`
 * call it makes against AWS. Like dynalite and fauxqs it listens on loopback only and does not
 * check signatures: anyone who can reach it can already reach the emulators' data directly.
 */
export async function startLambdaApi(options: LambdaApiOptions): Promise<LambdaApi> {
  const known = Object.keys(options.functions);
  const server = http.createServer(async (req, res) => {
    try {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
      if (req.method !== 'POST' || !match) {
        return reply(res, 404, { message: 'only Invoke is served here' }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
      }
      const key = functionKeyOf(match[1]!, known);
      if (!key) {
        return reply(res, 404, { Type: 'User', message: `Function not found: ${match[1]} (local functions: ${known.join(', ')})` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
      }
      const raw = await readBody(req, MAX_PAYLOAD_BYTES);
      if (raw === undefined) return reply(res, 413, { message: 'payload too large' }, { 'x-amzn-errortype': 'RequestTooLargeException' });
      let payload: unknown;
      try {
        payload = raw === '' ? {} : JSON.parse(raw);
      } catch {
        return reply(res, 400, { Type: 'User', message: 'Could not parse request body into json' }, { 'x-amzn-errortype': 'InvalidRequestContentException' });
      }
      const handler = options.functions[key]!;
      const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
      if (type === 'DryRun') return reply(res, 204, undefined);
      if (type === 'Event') {
        void handler(payload, lambdaContext(key)).catch(options.onError);
        return reply(res, 202, undefined);
      }
      try {
        const result = await handler(payload, lambdaContext(key));
        return reply(res, 200, result ?? null, { 'x-amz-executed-version': '$LATEST' });
      } catch (error) {
        options.onError(error);
        const e = error as Error;
        return reply(res, 200, { errorType: e.name ?? 'Error', errorMessage: e.message ?? String(error) }, { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
      }
    } catch (error) {
      options.onError(error);
      if (!res.headersSent) reply(res, 500, { message: 'the local Lambda API failed to handle the request' }, { 'x-amzn-errortype': 'ServiceException' });
    }
  });
  return listen(server, 0, options.host);
}

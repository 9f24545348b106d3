import { randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { FunctionKey } from '#config/topology.ts';
import { lambdaContext, type Invoke } from './lambda-context.ts';
import { CLOSING, listen, readBody } from './http-server.ts';
import { INVOKE_TOKEN_HEADER } from './runtime-file.ts';

/** The Lambda Invoke API's largest synchronous payload. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

export interface LambdaApiOptions {
  /** The functions operators invoke directly, by topology key. */
  readonly functions: Readonly<Partial<Record<FunctionKey, Invoke<unknown, unknown>>>>;
  readonly onError: (error: unknown) => void;
  /** Where it listens (local/ports.ts: PORT+3 for `npm start`); 0, the default, picks a free port. */
  readonly port?: number;
}

export interface LambdaApi {
  readonly url: string;
  /** This run's token: a request without it in INVOKE_TOKEN_HEADER is refused. runtime.json carries it to the CLI. */
  readonly token: string;
  close(): Promise<void>;
}

/** What a browser may send cross-site without a CORS preflight: a page could otherwise post here. */
const SIMPLE_CONTENT_TYPES = /^\s*(text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

/** Why the request is refused, or undefined when it carries this run's token and does not come from a browser. */
function refusal(req: IncomingMessage, token: Buffer): string | undefined {
  if (req.headers.origin !== undefined) return 'requests from a browser (with an Origin header) are refused';
  if (SIMPLE_CONTENT_TYPES.test(req.headers['content-type'] ?? ''))
    return `content-type ${req.headers['content-type']} is refused (what a browser form can send)`;
  const given = Buffer.from(String(req.headers[INVOKE_TOKEN_HEADER] ?? ''));
  if (given.length !== token.length || !timingSafeEqual(given, token)) {
    return `refused: the ${INVOKE_TOKEN_HEADER} header must carry this run's token (lambdaToken in the data folder's runtime.json; npx hookline sends it)`;
  }
  return undefined;
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
 * call it makes against AWS. It listens on loopback only and does not check signatures, but it
 * runs replays and archive runs for whoever asks, so it asks for a token generated at start
 * (other local users and processes cannot read runtime.json) and refuses anything a web page
 * could send (an Origin header, a form content type): a page in the operator's browser must not
 * be able to trigger a bulk replay. Both checks come before the body is read or a name resolved.
 */
export async function startLambdaApi(options: LambdaApiOptions): Promise<LambdaApi> {
  const known = Object.keys(options.functions);
  const token = randomBytes(32).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const server = http.createServer(async (req, res) => {
    try {
      const refused = refusal(req, tokenBytes);
      if (refused)
        return reply(res, 403, { message: refused }, { 'x-amzn-errortype': 'AccessDeniedException', ...CLOSING });
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(
        new URL(req.url ?? '/', 'http://localhost').pathname,
      );
      if (req.method !== 'POST' || !match) {
        return reply(
          res,
          404,
          { message: 'only Invoke is served here' },
          { 'x-amzn-errortype': 'ResourceNotFoundException' },
        );
      }
      const key = functionKeyOf(match[1]!, known);
      if (!key) {
        return reply(
          res,
          404,
          { Type: 'User', message: `Function not found: ${match[1]} (local functions: ${known.join(', ')})` },
          { 'x-amzn-errortype': 'ResourceNotFoundException' },
        );
      }
      const raw = await readBody(req, MAX_PAYLOAD_BYTES);
      if (raw === undefined)
        return reply(
          res,
          413,
          { message: 'payload too large' },
          { 'x-amzn-errortype': 'RequestTooLargeException', ...CLOSING },
        );
      let payload: unknown;
      try {
        payload = raw === '' ? {} : JSON.parse(raw);
      } catch {
        return reply(
          res,
          400,
          { Type: 'User', message: 'Could not parse request body into json' },
          { 'x-amzn-errortype': 'InvalidRequestContentException' },
        );
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
        return reply(
          res,
          200,
          { errorType: e.name ?? 'Error', errorMessage: e.message ?? String(error) },
          { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' },
        );
      }
    } catch (error) {
      options.onError(error);
      if (!res.headersSent)
        reply(
          res,
          500,
          { message: 'the local Lambda API failed to handle the request' },
          { 'x-amzn-errortype': 'ServiceException' },
        );
    }
  });
  const listening = await listen(server, options.port ?? 0);
  return { ...listening, token };
}

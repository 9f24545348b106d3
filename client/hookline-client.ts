import type { z } from 'zod';
import type { OperationKey, Operations } from '#handlers/api/operations.ts';

/**
 * A typed client for the Hookline HTTP API, written on the operations table the OpenAPI
 * document is built from (lambdas/handlers/api/operations.ts): a call names its route by the
 * table's key (`'GET /v1/subscriptions/{subscriptionId}'`), which is where the method and the
 * path come from, and its path parameters, query, body and result are typed from that route's
 * zod schemas (z.input for what is sent, z.output for what comes back). There is no copy of a
 * route here to keep in step.
 *
 * It imports the table's types only, so at run time it is `fetch` and nothing else: it runs in
 * Node (the CLI) and in a browser (a dashboard) alike.
 */

type PathOf<K extends string> = K extends `${string} ${infer P}` ? P : never;
type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer R}` ? N | ParamNames<R> : never;
type Op<K extends OperationKey> = Operations[K];

/** A query parameter as a caller gives it: the API reads strings, so numbers and booleans are written out. */
type QueryValue = string | number | boolean | undefined;
type QueryOf<K extends OperationKey> =
  Op<K> extends { readonly query: infer Q extends z.ZodType }
    ? { readonly [F in keyof z.input<Q>]?: QueryValue }
    : never;
type BodyOf<K extends OperationKey> =
  Op<K> extends { readonly body: { readonly schema: infer S extends z.ZodType } } ? z.input<S> : never;
type BodyIsOptional<K extends OperationKey> =
  Op<K> extends { readonly body: { readonly optional: true } } ? true : false;

type Params<K extends OperationKey> = [ParamNames<PathOf<K>>] extends [never]
  ? unknown
  : { readonly params: { readonly [N in ParamNames<PathOf<K>>]: string } };
type Query<K extends OperationKey> = [QueryOf<K>] extends [never] ? unknown : { readonly query?: QueryOf<K> };
/**
 * The body as a value (sent as JSON), or `bodyText`: JSON text sent exactly as written, for a
 * payload whose numbers or key order must not change on the way (publish).
 */
type Body<K extends OperationKey> = [BodyOf<K>] extends [never]
  ? unknown
  : BodyIsOptional<K> extends true
    ? { readonly body?: BodyOf<K>; readonly bodyText?: string }
    : { readonly body: BodyOf<K>; readonly bodyText?: never } | { readonly body?: never; readonly bodyText: string };

/** What a call to route `K` takes. */
export type RequestOf<K extends OperationKey> = Params<K> &
  Query<K> &
  Body<K> & {
    /** The `Idempotency-Key` header, on the routes that take it (the OpenAPI document lists them). */
    readonly idempotencyKey?: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly signal?: AbortSignal;
  };

type Responses<K extends OperationKey> = Op<K>['responses'];
type StatusOf<K extends OperationKey> = keyof Responses<K> & number;

/** What route `K` answers: one of its documented statuses, with that status's body. */
export type ResultOf<K extends OperationKey> = {
  [S in StatusOf<K>]: {
    readonly status: S;
    readonly body: z.output<Responses<K>[S] extends { readonly schema: infer T extends z.ZodType } ? T : never>;
    readonly headers: Headers;
  };
}[StatusOf<K>];

/** The body of route `K`'s answer (any of its successful statuses). */
export type AnswerOf<K extends OperationKey> = ResultOf<K>['body'];

/** The item type of a listing's answer. */
export type ItemOf<K extends OperationKey> = AnswerOf<K> extends { readonly items: readonly (infer I)[] } ? I : never;

/** Routes that answer a page (`{items, nextCursor}`) and take a `cursor`. */
export type ListingKey = {
  [K in OperationKey]: AnswerOf<K> extends { readonly items: readonly unknown[]; readonly nextCursor: string | null }
    ? 'cursor' extends keyof QueryOf<K>
      ? K
      : never
    : never;
}[OperationKey];

/** The API refused the request (4xx) or failed (5xx): `code` and `message` are its error body. */
export class HooklineApiError extends Error {
  override name = 'HooklineApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** `Retry-After` (seconds) on a 429. */
    readonly retryAfterSeconds: number | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** The API could not be reached at all (refused connection, DNS, TLS): nothing was answered. */
export class HooklineUnreachableError extends Error {
  override name = 'HooklineUnreachableError';
}

export interface ClientOptions {
  /** The API's base URL (`http://127.0.0.1:3000`, the stack's ApiUrl). */
  readonly baseUrl: string;
  /** A bearer key: the admin key or a tenant key. */
  readonly key?: string;
  readonly fetch?: typeof fetch;
  /** Called with every answer before it is returned or thrown (a test checks answers against the document here). */
  readonly onAnswer?: (answer: {
    readonly key: OperationKey;
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly body: unknown;
  }) => void;
}

/** The path of route `key` with its parameters filled in, each percent-encoded. */
export function pathFor(key: OperationKey, params: Readonly<Record<string, string>> = {}): string {
  const template = key.slice(key.indexOf(' ') + 1);
  return template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${key} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;

  async function request<K extends OperationKey>(
    key: K,
    ...[req]: {} extends RequestOf<K> ? [RequestOf<K>?] : [RequestOf<K>]
  ): Promise<ResultOf<K>> {
    const r = (req ?? {}) as {
      params?: Record<string, string>;
      query?: Record<string, QueryValue>;
      body?: unknown;
      bodyText?: string;
      idempotencyKey?: string;
      headers?: Record<string, string>;
      signal?: AbortSignal;
    };
    const method = key.slice(0, key.indexOf(' '));
    const text = r.bodyText ?? (r.body === undefined ? undefined : JSON.stringify(r.body));
    const path = pathFor(key, r.params);
    const url = `${base}${path}${queryString(r.query)}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(r.idempotencyKey !== undefined ? { 'idempotency-key': r.idempotencyKey } : {}),
          ...r.headers,
        },
        ...(text !== undefined ? { body: text } : {}),
        ...(r.signal ? { signal: r.signal } : {}),
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      throw new HooklineUnreachableError(`cannot reach the Hookline API at ${base}: ${e.cause?.code ?? e.message}`, {
        cause: error,
      });
    }
    const answer = await res.text();
    let body: unknown;
    try {
      body = answer ? JSON.parse(answer) : undefined;
    } catch {
      body = answer;
    }
    options.onAnswer?.({ key, method, path, status: res.status, body });
    if (res.status >= 400) {
      // Hookline's `{error: {code, message}}`; API Gateway's own refusals are `{message}`.
      const shaped = body as { error?: { code?: string; message?: string }; message?: string } | undefined;
      const retryAfter = res.headers.get('retry-after');
      throw new HooklineApiError(
        res.status,
        shaped?.error?.code ?? (shaped?.message ? 'gateway_error' : 'error'),
        shaped?.error?.message ?? shaped?.message ?? `HTTP ${res.status}`,
        retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
        body,
      );
    }
    return { status: res.status, body, headers: res.headers } as ResultOf<K>;
  }

  /** Every item of a listing, page after page (each `nextCursor` passed back as `cursor`). */
  async function* paginate<K extends ListingKey>(
    key: K,
    ...[req]: {} extends RequestOf<K> ? [RequestOf<K>?] : [RequestOf<K>]
  ): AsyncGenerator<ItemOf<K>> {
    const first = (req ?? {}) as { query?: Record<string, QueryValue> };
    let cursor = first.query?.cursor as string | undefined;
    for (;;) {
      const page = await (
        request as (k: K, r: unknown) => Promise<{ body: { items: readonly unknown[]; nextCursor: string | null } }>
      )(key, { ...first, query: { ...first.query, cursor } });
      yield* page.body.items as readonly ItemOf<K>[];
      if (!page.body.nextCursor) return;
      cursor = page.body.nextCursor;
    }
  }

  /** `request` for a caller that wants the body alone. */
  async function call<K extends OperationKey>(
    key: K,
    ...args: {} extends RequestOf<K> ? [RequestOf<K>?] : [RequestOf<K>]
  ): Promise<AnswerOf<K>> {
    return (await request(key, ...args)).body as AnswerOf<K>;
  }

  return { request, call, paginate, baseUrl: base };
}

export type HooklineClient = ReturnType<typeof createClient>;

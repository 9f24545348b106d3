import type { Principal } from '#app/access.ts';
import type { FunctionDeps } from '#app/deps.ts';
import type { Query } from '#app/parse.ts';
import { ID_PREFIXES, idPatternSource } from '#app/schema/common.ts';
import type { DashboardAssets } from '#ports/dashboard-assets.ts';
import type { Mailbox } from '#ports/mailbox.ts';
import type { Page } from '#ports/page.ts';

/** One API request as the handler hands it over, whatever transport it came by. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Query;
  readonly body: string | null;
  /** Request headers, names lower-cased (`idempotency-key`); absent ones are undefined. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /**
   * Who the authorizer let in, or undefined when nobody was established: then only public
   * routes answer and everything else is UnauthorizedError (there is no default principal).
   */
  readonly principal: Principal | undefined;
  /** When a long request (a bulk replay) must checkpoint and answer (epoch ms); the rest continues on the replay schedule. */
  readonly deadlineMs?: number;
  /** Where this API was reached (`https://abc.execute-api…/prod`, no trailing slash), for links that point back at it (a portal link). */
  readonly baseUrl?: string;
  /** The web dashboard's files, where this deployment serves them (routes/dashboard.ts). */
  readonly dashboard?: DashboardAssets;
  /** The local mail catcher's messages; absent where mail is not kept (AWS). */
  readonly mailbox?: Mailbox;
}

/** A route's answer before it becomes JSON. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  /** A body that is not JSON (the dashboard's files): `body` is sent as the text it is, with this type and these headers. */
  readonly raw?: { readonly contentType: string; readonly headers: Readonly<Record<string, string>> };
}

export type AuthenticatedRequest = ApiRequest & { readonly principal: Principal };

/** The path parameters a route's template names, decoded only as far as the pattern allows. */
export type Params = Readonly<Record<string, string>>;

/**
 * What each path parameter may be, by name: ids bounded like parseId (64 after the prefix), so
 * an id DynamoDB would refuse as a key (over 2048 bytes) never reaches the store.
 */
export const PATH_PARAMETERS = {
  // The id schemas' own pattern (lambdas/app/schema/common.ts), so a path and a body hold ids to one rule.
  subscriptionId: `(${idPatternSource(ID_PREFIXES.subscription)})`,
  deliveryId: `(${idPatternSource(ID_PREFIXES.delivery)})`,
  replayId: `(${idPatternSource(ID_PREFIXES.replay)})`,
  keyId: `(${idPatternSource(ID_PREFIXES.key)})`,
  sessionId: `(${idPatternSource(ID_PREFIXES.portalSession)})`,
  // An event id is the producer's (1 to 128 of these); percent-encoded, each can take 3.
  eventId: '([^/]{1,384})',
  // A tenant id is at most 128 characters; percent-encoded, each can take 3.
  tenantId: '([^/]{1,384})',
  // A registered event type's name: at most 256 characters (a `:` percent-encoded takes 3).
  name: '([^/]{1,768})',
} as const;

export type PathParameter = keyof typeof PATH_PARAMETERS;

/**
 * One route: `path` is its template as the API documents it (`/v1/subscriptions/{subscriptionId}`),
 * from which the matching pattern is built, so the table and the documentation cannot disagree.
 */
export type Route = { readonly method: string; readonly path: string } & (
  | {
      readonly access: 'public';
      readonly run: (deps: FunctionDeps<'api'>, req: ApiRequest, params: Params) => Promise<ApiResponse>;
    }
  /** `admin`: the deployment's key only; `tenant`: tenant keys too, which every service scopes to their own resources. */
  | {
      readonly access: 'admin' | 'tenant';
      readonly run: (deps: FunctionDeps<'api'>, req: AuthenticatedRequest, params: Params) => Promise<ApiResponse>;
    }
);

export const ok = (body: unknown, status = 200): ApiResponse => ({ status, body });
export const listed = <T>(page: Page<T>, view: (item: T) => unknown): ApiResponse =>
  ok({ items: page.items.map(view), nextCursor: page.nextCursor ?? null });

/** The names of a template's parameters, in order. */
export function parameterNames(template: string): PathParameter[] {
  return [...template.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => {
    const name = m[1]!;
    if (!(name in PATH_PARAMETERS)) throw new Error(`route template ${template} names an unknown parameter {${name}}`);
    return name as PathParameter;
  });
}

/** The anchored pattern a template matches. */
export function patternOf(template: string): RegExp {
  const source = template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => PATH_PARAMETERS[name as PathParameter]);
  return new RegExp(`^${source}$`);
}

import {
  ConflictError,
  describeRefusal,
  ForbiddenError,
  IdempotencyKeyReusedError,
  MethodNotAllowedError,
  NotFoundError,
  RouteNotFoundError,
  RateLimitedError,
  TemporarilyUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '#app/errors.ts';
import {
  ForbiddenTargetError,
  InvalidHeaderError,
  InvalidPolicyError,
  InvalidRetryPolicyError,
  InvalidSecretError,
  InvalidTransitionError,
} from '#domain/errors.ts';
import { InvalidCursorError } from '#ports/page.ts';

/** The public error codes, as the HTTP API documents them. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error';

/** A refused request as every entry point answers it: the status, the public `{code, message}`, and any headers that go with it. */
export interface ErrorAnswer {
  readonly status: number;
  readonly error: { readonly code: ErrorCode; readonly message: string };
  readonly headers: Readonly<Record<string, string>>;
}

/** One row of the table: an error class and how a caller is told about it. */
interface ErrorRule<E extends Error> {
  readonly type: abstract new (...args: never[]) => E;
  readonly status: number;
  readonly code: ErrorCode;
  /** The public message; the error's own message when absent. */
  readonly message?: (error: E) => string;
  readonly headers?: (error: E) => Record<string, string>;
}

/** Keeps each row's callbacks typed against its own class while the table holds them all. */
const rule = <E extends Error>(r: ErrorRule<E>): ErrorRule<Error> => r as unknown as ErrorRule<Error>;

/**
 * The one table from error classes (services' and the domain's) to answers, used by the HTTP
 * API and by directly invoked functions alike. The first row whose class the error is an
 * instance of wins, so a subclass answers like its parent unless it has a row of its own.
 * Domain errors about one input value answer like a ValidationError, from their parts.
 */
const ERROR_TABLE: readonly ErrorRule<Error>[] = [
  rule({ type: ValidationError, status: 400, code: 'invalid_request' }),
  rule({ type: InvalidCursorError, status: 400, code: 'invalid_request' }),
  rule({ type: InvalidRetryPolicyError, status: 400, code: 'invalid_request', message: describeRefusal }),
  rule({ type: ForbiddenTargetError, status: 400, code: 'invalid_request', message: describeRefusal }),
  rule({ type: InvalidPolicyError, status: 400, code: 'invalid_request', message: describeRefusal }),
  rule({ type: InvalidSecretError, status: 400, code: 'invalid_request' }),
  rule({ type: InvalidHeaderError, status: 400, code: 'invalid_request', message: describeRefusal }),
  rule({ type: UnauthorizedError, status: 401, code: 'unauthorized' }),
  rule({ type: ForbiddenError, status: 403, code: 'forbidden' }),
  rule({ type: NotFoundError, status: 404, code: 'not_found' }),
  rule({ type: RouteNotFoundError, status: 404, code: 'route_not_found' }),
  rule({
    type: MethodNotAllowedError,
    status: 405,
    code: 'method_not_allowed',
    headers: (e) => ({ allow: e.allowed.join(', ') }),
  }),
  rule({ type: ConflictError, status: 409, code: 'conflict' }),
  // Understood but not done: the key names another request (RFC 9110's 422, as payment APIs answer it).
  rule({ type: IdempotencyKeyReusedError, status: 422, code: 'idempotency_key_reused' }),
  // A state change the state machine refuses got past the service's own checks (a race): the
  // delivery's state conflicts with the request, which a caller can read again and retry.
  rule({ type: InvalidTransitionError, status: 409, code: 'conflict' }),
  rule({
    type: RateLimitedError,
    status: 429,
    code: 'rate_limited',
    headers: (e) => ({ 'retry-after': String(e.retryAfterSeconds) }),
  }),
  rule({
    type: TemporarilyUnavailableError,
    status: 503,
    code: 'unavailable',
    headers: (e) => ({ 'retry-after': String(e.retryAfterSeconds) }),
  }),
];

/** What an error not in the table answers over HTTP: no internals, since it may be anything. */
export const INTERNAL_ERROR: ErrorAnswer = Object.freeze({
  status: 500,
  error: Object.freeze({
    code: 'internal_error',
    message: 'something went wrong; nothing was changed by this request unless it says otherwise',
  }),
  headers: Object.freeze({}),
});

/**
 * The answer for a refused request, or undefined when the error is not one the table knows
 * (a fault, not a refusal: the caller answers 500 or rethrows, and logs it).
 */
export function answerFor(error: unknown): ErrorAnswer | undefined {
  const row = ERROR_TABLE.find((r) => error instanceof r.type);
  if (!row) return undefined;
  const e = error as Error;
  return {
    status: row.status,
    error: { code: row.code, message: row.message ? row.message(e) : e.message },
    headers: row.headers?.(e) ?? {},
  };
}

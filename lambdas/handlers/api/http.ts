import type { APIGatewayProxyResult } from 'aws-lambda';
import { InvalidCursorError } from '#adapters/errors.ts';
import { ConflictError, ForbiddenError, MethodNotAllowedError, NotFoundError, RateLimitedError, ServiceError, UnauthorizedError, ValidationError } from '#app/errors.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** The one mapping from service errors to HTTP statuses; anything unknown is a 500 without internals. */
export function errorResponse(error: unknown): { response: APIGatewayProxyResult; unexpected: boolean } {
  const status =
    error instanceof ValidationError || error instanceof InvalidCursorError ? 400
    : error instanceof UnauthorizedError ? 401
    : error instanceof ForbiddenError ? 403
    : error instanceof NotFoundError ? 404
    : error instanceof MethodNotAllowedError ? 405
    : error instanceof ConflictError ? 409
    : error instanceof RateLimitedError ? 429
    : undefined;
  if (status === undefined) {
    return { response: json(500, errorBody('internal_error', 'something went wrong; nothing was changed by this request unless it says otherwise')), unexpected: true };
  }
  const code = error instanceof ServiceError ? error.code : 'invalid_request';
  const headers: Record<string, string> =
    error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) }
    : error instanceof MethodNotAllowedError ? { allow: error.allowed.join(', ') }
    : {};
  return { response: json(status, errorBody(code, (error as Error).message), headers), unexpected: false };
}

import type { APIGatewayProxyResult } from 'aws-lambda';
import { answerFor, INTERNAL_ERROR } from '../error-map.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON response with the API's standard headers (never cached). */
export function json(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * An error as an HTTP response, by the error table (handlers/error-map.ts); `unexpected` when
 * the table does not know it, which answers a 500 without internals and is for the caller to log.
 */
export function errorResponse(error: unknown): { response: APIGatewayProxyResult; unexpected: boolean } {
  const answer = answerFor(error);
  const { status, error: body, headers } = answer ?? INTERNAL_ERROR;
  return { response: json(status, { error: body }, headers), unexpected: answer === undefined };
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as appErrors from '#app/errors.ts';
import {
  ConflictError,
  ForbiddenError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  MethodNotAllowedError,
  NotFoundError,
  RouteNotFoundError,
  RateLimitedError,
  TemporarilyUnavailableError,
  ServiceError,
  UnauthorizedError,
  ValidationError,
} from '#app/errors.ts';
import * as domainErrors from '#domain/errors.ts';
import {
  ArchiveFormatError,
  DomainError,
  ForbiddenTargetError,
  InvalidHeaderError,
  InvalidPolicyError,
  InvalidRetryPolicyError,
  InvalidSecretError,
  InvalidTransitionError,
} from '#domain/errors.ts';
import { STATE } from '#domain/states.ts';
import { errorResponse } from '#handlers/api/http.ts';
import { answerFor, INTERNAL_ERROR } from '#handlers/error-map.ts';
import { InvalidCursorError } from '#ports/page.ts';

// [error, status, code, message, headers]
const TABLE: ReadonlyArray<readonly [Error, number, string, string, Record<string, string>]> = [
  [
    new ValidationError('url', 'a non-empty string is required'),
    400,
    'invalid_request',
    'url: a non-empty string is required',
    {},
  ],
  [new ValidationError('', 'must be a JSON object'), 400, 'invalid_request', 'must be a JSON object', {}],
  [
    new InvalidCursorError(),
    400,
    'invalid_request',
    'cursor is not valid: pass back the nextCursor of a previous page unchanged',
    {},
  ],
  [
    new InvalidRetryPolicyError('maxDelaySeconds', 'must be at least initialDelaySeconds'),
    400,
    'invalid_request',
    'retryPolicy.maxDelaySeconds: must be at least initialDelaySeconds',
    {},
  ],
  [new InvalidRetryPolicyError('', 'must be an object'), 400, 'invalid_request', 'retryPolicy: must be an object', {}],
  [
    new ForbiddenTargetError('scheme must be http or https, not ftp', 'ftp://x'),
    400,
    'invalid_request',
    'url: scheme must be http or https, not ftp',
    {},
  ],
  [
    new InvalidPolicyError('replayPolicy', 'windowDays', 'must be a number'),
    400,
    'invalid_request',
    'replayPolicy.windowDays: must be a number',
    {},
  ],
  [new InvalidSecretError('a secret starts with whsec_'), 400, 'invalid_request', 'a secret starts with whsec_', {}],
  [
    new InvalidHeaderError('Host', 'is set by Hookline'),
    400,
    'invalid_request',
    'headers.Host: is set by Hookline',
    {},
  ],
  [new UnauthorizedError(), 401, 'unauthorized', 'a valid Authorization: Bearer <key> header is required', {}],
  [
    new ForbiddenError('POST /v1/events needs the admin key'),
    403,
    'forbidden',
    'POST /v1/events needs the admin key',
    {},
  ],
  [new NotFoundError('delivery', 'dlv_x'), 404, 'not_found', 'delivery dlv_x does not exist', {}],
  [
    new RouteNotFoundError('GET', '/v1/nothing'),
    404,
    'route_not_found',
    'no route GET /v1/nothing (see GET /openapi.json for the routes)',
    {},
  ],
  [
    new MethodNotAllowedError('DELETE', '/v1/subscriptions', ['GET', 'POST']),
    405,
    'method_not_allowed',
    'DELETE is not supported on /v1/subscriptions (allowed: GET, POST)',
    { allow: 'GET, POST' },
  ],
  [new ConflictError('subscription sub_x is disabled'), 409, 'conflict', 'subscription sub_x is disabled', {}],
  [
    new IdempotencyKeyReusedError('Idempotency-Key k was used for another request'),
    422,
    'idempotency_key_reused',
    'Idempotency-Key k was used for another request',
    {},
  ],
  [
    new IdempotencyKeyInProgressError('the first request with this Idempotency-Key is still running'),
    409,
    'conflict',
    'the first request with this Idempotency-Key is still running',
    {},
  ],
  [
    new InvalidTransitionError(STATE.pending, 'replay'),
    409,
    'conflict',
    `cannot replay a delivery in state '${STATE.pending}'`,
    {},
  ],
  [
    new RateLimitedError('at most 100 replays per 60 s', 17),
    429,
    'rate_limited',
    'at most 100 replays per 60 s',
    { 'retry-after': '17' },
  ],
  [
    new TemporarilyUnavailableError('publish stalled; send it again'),
    503,
    'unavailable',
    'publish stalled; send it again',
    { 'retry-after': '1' },
  ],
];

/** Classes left out of the table on purpose: faults of the service or its data, answered 500 / rethrown. */
const UNMAPPED = new Set<unknown>([
  ServiceError,
  DomainError,
  ArchiveFormatError,
  appErrors.ArchiveVerificationError,
  appErrors.ArchiveLockLostError,
  appErrors.DeliveryStageError,
  // The sender's own fault, raised inside a delivery stage (never an API answer).
  appErrors.AttemptNumberTakenError,
]);

describe('the error table', () => {
  for (const [error, status, code, message, headers] of TABLE) {
    it(`${error.name} → ${status} ${code}, '${message}'`, () => {
      assert.deepEqual(answerFor(error), { status, error: { code, message }, headers });
    });

    it(`${error.name} over HTTP, '${message}': the public body only, and its headers`, () => {
      const { response, unexpected } = errorResponse(error);
      assert.equal(unexpected, false);
      assert.equal(response.statusCode, status);
      assert.deepEqual(JSON.parse(response.body), { error: { code, message } });
      for (const [name, value] of Object.entries(headers)) assert.equal(response.headers?.[name], value);
      assert.match(String(response.headers?.['content-type']), /^application\/json/);
    });
  }

  it('has a row (or a deliberate absence) for every error class the services and the domain export', () => {
    const exported: unknown[] = [...Object.values(appErrors), ...Object.values(domainErrors), InvalidCursorError];
    const classes = exported.filter(
      (value): value is { name: string; prototype: unknown } =>
        typeof value === 'function' && value.prototype instanceof Error,
    );
    assert.ok(classes.length >= 15, `found ${classes.length} error classes`);
    const tabled = new Set<unknown>(TABLE.map(([error]) => error.constructor));
    for (const type of classes) {
      assert.ok(
        tabled.has(type) || UNMAPPED.has(type),
        `${type.name} is neither in the table test nor deliberately unmapped`,
      );
    }
  });

  const unknowns: ReadonlyArray<readonly [string, unknown]> = [
    ['a plain Error', new Error('ECONNRESET at 10.0.0.5:443 (table hookline-deliveries)')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a bare ServiceError', new ServiceError('no class says what this is')],
    ['a bare DomainError', new DomainError('no rule says what this is')],
    [
      'an ArchiveFormatError (stored data, not the request)',
      new ArchiveFormatError('archive object line 3 is not JSON'),
    ],
    ['a thrown string', 'boom'],
    ['undefined', undefined],
  ];
  for (const [label, error] of unknowns) {
    it(`${label} is not a refusal: no answer, and a 500 without internals over HTTP`, () => {
      assert.equal(answerFor(error), undefined);
      const { response, unexpected } = errorResponse(error);
      assert.equal(unexpected, true);
      assert.equal(response.statusCode, 500);
      assert.deepEqual(JSON.parse(response.body), { error: INTERNAL_ERROR.error });
      assert.equal(INTERNAL_ERROR.error.code, 'internal_error');
      if (error instanceof Error) assert.ok(!response.body.includes(error.message), 'the message stays internal');
    });
  }

  it('a subclass answers like the class it extends, unless it has its own row', () => {
    class StaleReplayError extends InvalidTransitionError {
      override name = 'StaleReplayError';
    }
    class UnlistedDomainError extends DomainError {
      override name = 'UnlistedDomainError';
    }
    assert.deepEqual(answerFor(new StaleReplayError(STATE.delivered, 'claim')), {
      status: 409,
      error: { code: 'conflict', message: `cannot claim a delivery in state '${STATE.delivered}'` },
      headers: {},
    });
    assert.equal(answerFor(new UnlistedDomainError('x')), undefined);
    // ValidationError is a ServiceError: its own row wins over the (absent) base.
    assert.equal(answerFor(new ValidationError('limit', 'must be a whole number'))?.status, 400);
  });
});

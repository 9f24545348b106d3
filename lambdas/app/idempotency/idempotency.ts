import { iso } from '#domain/time.ts';
import { FUNCTIONS } from '#config/topology.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import {
  ConflictError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  ValidationError,
} from '#app/errors.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';
import { EVENT_ID_PATTERN } from '#app/schema/common.ts';
import { answerKeys, fingerprintOf, openAnswer, sealAnswer } from './sealed-answer.ts';

/**
 * The Idempotency-Key rule: a POST that creates something, sent again with the same key by the
 * same caller, answers what the first one answered (status and body) for 24 hours and does
 * nothing again. Which routes take the header is lambdas/handlers/api/idempotency.ts.
 */

/** The header as a refusal names it; requests carry it lower-cased (`idempotency-key`). */
export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** 1 to 255 visible ASCII characters: a UUID, a ULID or the caller's own request id all fit. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 visible ASCII characters (a UUID is a good key)';
/** How long a key's answer is kept and replayed. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;
/**
 * How long a first request holds its key: longer than the api function can run, so a key is
 * never taken over from a request still running, and a request that died frees it after this.
 */
export const IDEMPOTENCY_LOCK_SECONDS = FUNCTIONS.api.timeoutSeconds + 30;
/** Above this a sealed answer is not kept (a DynamoDB item holds 400 KB): a retry is told so, and nothing is done again. */
export const MAX_SEALED_ANSWER_CHARS = 300 * 1024;

export type IdempotencyDeps = Pick<Deps, 'idempotency' | 'clock'>;

/** The key a request carries, checked; undefined when it has none. */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) throw new ValidationError(IDEMPOTENCY_KEY_FIELD, IDEMPOTENCY_KEY_RULE);
  return value;
}

/**
 * POST /v1/events: the key is the event id, so publishing's own idempotency (the event's
 * conditional put, for the event's whole retention) is the rule, and nothing else is kept. It
 * must then be a valid event id, and may repeat the body's `id` but not contradict it.
 */
export function withKeyAsEventId(request: PublishRequest, header: string | undefined): PublishRequest {
  if (header === undefined) return request;
  if (!EVENT_ID_PATTERN.test(header))
    throw new ValidationError(
      IDEMPOTENCY_KEY_FIELD,
      'must be 1 to 128 visible ASCII characters on POST /v1/events: it becomes the event id',
    );
  if (request.id !== undefined && request.id !== header)
    throw new ValidationError(
      IDEMPOTENCY_KEY_FIELD,
      "differs from the body's id: give one of them, or the same value in both",
    );
  return { ...request, id: header };
}

/** Whose keys these are: the admin's, or one tenant's (every key of a tenant shares them); two scopes never see each other's. */
export function keyScope(principal: Principal): string {
  return principal.role === 'admin' ? 'admin' : `tenant:${principal.tenantId}`;
}

/** One request sent with a key. `route` is its template (`POST /v1/replays`): the same key on two routes is two keys. */
export interface KeyedRequest {
  readonly scope: string;
  readonly route: string;
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly body: string | null;
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Runs `run` once per key: the first request takes the key (one conditional write), runs and
 * keeps its answer; a retry with the same path and body gets that answer back, one with another
 * path or body is IdempotencyKeyReusedError (422), and one while the first still runs is
 * IdempotencyKeyInProgressError (409). A first request that is refused or fails keeps nothing,
 * so a corrected retry runs; one that died mid-way frees its key after IDEMPOTENCY_LOCK_SECONDS.
 */
export async function runIdempotent(
  deps: IdempotencyDeps,
  request: KeyedRequest,
  run: () => Promise<Answer>,
): Promise<Answer> {
  const keys = answerKeys(request.scope, request.route, request.key);
  const fingerprint = fingerprintOf(keys, request.method, request.path, request.body);
  const nowMs = deps.clock.now();
  const owner = Buffer.from(deps.clock.randomBytes(12)).toString('base64url');
  const began = await deps.idempotency.begin(
    {
      id: keys.id,
      fingerprint,
      createdAt: iso(nowMs),
      expiresAt: Math.ceil(nowMs / 1000) + IDEMPOTENCY_KEY_TTL_SECONDS,
      owner,
      lockedUntil: iso(nowMs + IDEMPOTENCY_LOCK_SECONDS * 1000),
    },
    iso(nowMs),
  );
  if (began.kind === 'exists') {
    const { record } = began;
    if (record.fingerprint !== fingerprint) {
      throw new IdempotencyKeyReusedError(
        `${IDEMPOTENCY_KEY_FIELD} ${request.key} was already used for a different request (another path or body) in the last 24 h; use a new key for a new request`,
      );
    }
    if (!record.response)
      throw new IdempotencyKeyInProgressError(
        `the first request with ${IDEMPOTENCY_KEY_FIELD} ${request.key} is still running; retry once it has answered`,
      );
    if (record.response.sealed === undefined) {
      throw new ConflictError(
        `the first request with ${IDEMPOTENCY_KEY_FIELD} ${request.key} answered ${record.response.status}, but its answer was too large to keep; nothing was done again`,
      );
    }
    return { status: record.response.status, body: JSON.parse(openAnswer(keys, record.response.sealed)) as unknown };
  }

  let answer: Answer;
  try {
    answer = await run();
  } catch (error) {
    // Refused or failed: nothing is kept, so the caller's corrected (or simply repeated) request runs.
    await deps.idempotency.release(keys.id, owner).catch(() => undefined);
    throw error;
  }
  const sealed = sealAnswer(keys, JSON.stringify(answer.body) ?? 'null', deps.clock.randomBytes(12));
  // The work is done, so this request answers whatever happens to the record: a lost lock (it
  // outlived its lock and a retry took over) keeps the retry's answer, and a failed write leaves
  // the key locked until IDEMPOTENCY_LOCK_SECONDS, which beats a 500 the caller would retry.
  await deps.idempotency
    .complete(keys.id, owner, {
      status: answer.status,
      ...(sealed.length <= MAX_SEALED_ANSWER_CHARS ? { sealed } : {}),
    })
    .catch(() => false);
  return answer;
}

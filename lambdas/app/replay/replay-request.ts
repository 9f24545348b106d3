import { DEFAULT_REPLAY_STATES, isReplayableState, type ReplayableState, type ReplayCriteria } from '#domain/replay.ts';
import { REPLAYABLE_STATES } from '#domain/states.ts';
import { ValidationError } from '#app/errors.ts';
import { type Json, optionalBoolean, parseId, parseInstant, parseObject, parseTenantId, rejectUnknownFields } from '#app/parse.ts';
import type { BulkReplayRequest } from './bulk-replay.ts';

const OPERATOR_PATTERN = /^[\x20-\x7e]{1,200}$/;

function parseStates(value: unknown): readonly ReplayableState[] {
  if (value === undefined) return [...DEFAULT_REPLAY_STATES].sort();
  if (!Array.isArray(value) || value.length === 0 || !value.every(isReplayableState)) {
    throw new ValidationError('states', `must be a non-empty array of ${REPLAYABLE_STATES.join(', ')}`);
  }
  return [...new Set(value)].sort();
}

/** The criteria of a bulk replay, from an API body or a Lambda payload (same fields). */
export function parseReplayCriteria(body: Json): ReplayCriteria {
  const createdFrom = parseInstant(body.createdFrom, 'createdFrom', 'from');
  const createdTo = parseInstant(body.createdTo, 'createdTo', 'to');
  if (createdTo < createdFrom) throw new ValidationError('createdTo', 'must not be before createdFrom');
  return {
    states: parseStates(body.states),
    ...(body.subscriptionId !== undefined ? { subscriptionId: parseId(body.subscriptionId, 'sub', 'subscriptionId') } : {}),
    ...(body.tenantId !== undefined ? { tenantId: parseTenantId(body.tenantId) } : {}),
    createdFrom,
    createdTo,
  };
}

export const BULK_REPLAY_FIELDS = ['states', 'subscriptionId', 'tenantId', 'createdFrom', 'createdTo', 'dryRun', 'windowSeconds', 'operator'] as const;

/** `POST /v1/replays` and the replay function's bulk payload. `operator` defaults to the authenticated principal. */
export function parseBulkReplay(body: Json, principal: string): BulkReplayRequest {
  rejectUnknownFields(body, BULK_REPLAY_FIELDS);
  const window = body.windowSeconds;
  if (window !== undefined && (typeof window !== 'number' || !Number.isInteger(window) || window < 0 || window > 86_400)) {
    throw new ValidationError('windowSeconds', 'must be a whole number of seconds from 0 to 86400');
  }
  if (body.operator !== undefined && (typeof body.operator !== 'string' || !OPERATOR_PATTERN.test(body.operator))) {
    throw new ValidationError('operator', 'must be 1 to 200 printable ASCII characters');
  }
  return {
    criteria: parseReplayCriteria(body),
    dryRun: optionalBoolean(body, 'dryRun'),
    operator: (body.operator as string | undefined) ?? principal,
    principal,
    ...(window !== undefined ? { windowSeconds: window as number } : {}),
  };
}

export function parseBulkReplayBody(raw: string | null | undefined, principal: string): BulkReplayRequest {
  return parseBulkReplay(parseObject(raw, BULK_REPLAY_FIELDS, 16 * 1024), principal);
}

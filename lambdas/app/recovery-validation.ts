import { DEFAULT_REPLAY_STATES, isReplayableState, type ReplayableState, type ReplayCriteria } from '#domain/replay.ts';
import { REPLAYABLE_STATES } from '#domain/states.ts';
import { ValidationError } from './errors.ts';
import type { BulkReplayRequest } from './replays.ts';
import type { RestoreRequest } from './archival.ts';
import { parseId, parseObject } from './validation.ts';

const TENANT_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const OPERATOR_PATTERN = /^[\x20-\x7e]{1,200}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

type Json = Record<string, unknown>;

export function parseTenantId(value: unknown, field = 'tenantId'): string {
  if (typeof value !== 'string' || !TENANT_PATTERN.test(value)) throw new ValidationError(field, 'must be 1 to 128 letters, digits, or . _ : -');
  return value;
}

/**
 * A point in time for a range bound: an ISO 8601 instant with a zone, or a bare day, which
 * means the start of that day for `from` and its last millisecond for `to`.
 */
export function parseInstant(value: unknown, field: string, end: 'from' | 'to'): string {
  if (typeof value !== 'string') throw new ValidationError(field, 'is required: an ISO 8601 time (2024-05-01T00:00:00Z) or a day (2024-05-01)');
  const text = DAY.test(value) ? `${value}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : value;
  const ms = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(field, `'${value.slice(0, 40)}' is not an ISO 8601 time with a zone (2024-05-01T00:00:00Z) or a day (2024-05-01)`);
  return new Date(ms).toISOString();
}

function parseStates(value: unknown): readonly ReplayableState[] {
  if (value === undefined) return [...DEFAULT_REPLAY_STATES].sort();
  if (!Array.isArray(value) || value.length === 0 || !value.every(isReplayableState)) {
    throw new ValidationError('states', `must be a non-empty array of ${REPLAYABLE_STATES.join(', ')}`);
  }
  return [...new Set(value)].sort();
}

function optionalBoolean(body: Json, field: string): boolean {
  const value = body[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true or false');
  return value;
}

/** The criteria of a bulk replay, from an API body or a Lambda payload (same fields). */
export function parseReplayCriteria(body: Json): ReplayCriteria {
  const createdFrom = parseInstant(body.createdFrom, 'createdFrom', 'from');
  const createdTo = parseInstant(body.createdTo, 'createdTo', 'to');
  if (createdTo < createdFrom) throw new ValidationError('createdTo', 'must not be before createdFrom');
  return {
    states: parseStates(body.states),
    ...(body.subscriptionId !== undefined ? { subscriptionId: parseId(body.subscriptionId as string, 'sub', 'subscriptionId') } : {}),
    ...(body.tenantId !== undefined ? { tenantId: parseTenantId(body.tenantId) } : {}),
    createdFrom,
    createdTo,
  };
}

export const BULK_REPLAY_FIELDS = ['states', 'subscriptionId', 'tenantId', 'createdFrom', 'createdTo', 'dryRun', 'windowSeconds', 'operator'] as const;

/** `POST /v1/replays` and the replay function's bulk payload. `operator` defaults to the authenticated principal. */
export function parseBulkReplay(body: Json, principal: string): BulkReplayRequest {
  const unknown = Object.keys(body).filter((k) => !(BULK_REPLAY_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new ValidationError(unknown[0]!, `is not a known field (allowed: ${BULK_REPLAY_FIELDS.join(', ')})`);
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

/** `restore`: a range of creation days (at most a year), optionally one subscription. */
export function parseRestore(body: Json): RestoreRequest {
  const allowed = ['from', 'to', 'subscriptionId'];
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new ValidationError(unknown[0]!, `is not a known field (allowed: ${allowed.join(', ')})`);
  for (const field of ['from', 'to'] as const) {
    if (typeof body[field] !== 'string' || !DAY.test(body[field] as string) || Number.isNaN(Date.parse(body[field] as string))) {
      throw new ValidationError(field, 'must be a day, YYYY-MM-DD (UTC)');
    }
  }
  if ((body.to as string) < (body.from as string)) throw new ValidationError('to', 'must not be before from');
  const span = (Date.parse(body.to as string) - Date.parse(body.from as string)) / 86_400_000 + 1;
  if (span > 366) throw new ValidationError('to', 'a restore covers at most 366 days at a time');
  return {
    from: body.from as string,
    to: body.to as string,
    ...(body.subscriptionId !== undefined ? { subscriptionId: parseId(body.subscriptionId as string, 'sub', 'subscriptionId') } : {}),
  };
}

/** An optional `{reason}` body on pause. */
export function parsePauseBody(raw: string | null | undefined): { reason?: string } {
  if (raw === null || raw === undefined || raw.trim() === '') return {};
  const body = parseObject(raw, ['reason'], 4096);
  if (body.reason === undefined) return {};
  if (typeof body.reason !== 'string' || body.reason.length === 0 || body.reason.length > 500) {
    throw new ValidationError('reason', 'must be a string of 1 to 500 characters');
  }
  return { reason: body.reason };
}

/** `{action: 'archive', maxObjects?}`: how many objects this invocation may write at most. */
export function parseArchiveRun(body: Record<string, unknown>): { maxObjects?: number } {
  const max = body.maxObjects;
  if (max === undefined) return {};
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) throw new ValidationError('maxObjects', 'must be a positive whole number');
  return { maxObjects: max };
}

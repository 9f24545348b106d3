import type { RestoreRequest } from '#app/archive/archival.ts';
import { ValidationError } from '#app/errors.ts';
import { type Json, parseDay, parseId, rejectUnknownFields } from '#app/parse.ts';

/** `restore`: a range of creation days (at most a year), optionally one subscription. */
export function parseRestore(body: Json): RestoreRequest {
  rejectUnknownFields(body, ['from', 'to', 'subscriptionId']);
  parseDay(body.from, 'from');
  parseDay(body.to, 'to');
  if ((body.to as string) < (body.from as string)) throw new ValidationError('to', 'must not be before from');
  const span = (Date.parse(body.to as string) - Date.parse(body.from as string)) / 86_400_000 + 1;
  if (span > 366) throw new ValidationError('to', 'a restore covers at most 366 days at a time');
  return {
    from: body.from as string,
    to: body.to as string,
    ...(body.subscriptionId !== undefined ? { subscriptionId: parseId(body.subscriptionId, 'sub', 'subscriptionId') } : {}),
  };
}

/** `{action: 'archive', maxObjects?}`: how many objects this invocation may write at most. */
export function parseArchiveRun(body: Record<string, unknown>): { maxObjects?: number } {
  const max = body.maxObjects;
  if (max === undefined) return {};
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) throw new ValidationError('maxObjects', 'must be a positive whole number');
  return { maxObjects: max };
}

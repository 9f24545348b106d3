import { z } from 'zod';
import { daysBetween } from '#domain/archive.ts';
import { ArchiveFormatError } from '#domain/errors.ts';
import type { RestoreRequest } from '#app/archive/archival.ts';
import type { Json } from '#app/parse.ts';
import { day, fields, rule, subscriptionId } from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';

/**
 * `restore`: a range of creation days, optionally one subscription. How long a range may be,
 * and that it may not run backwards, is the domain's rule (`daysBetween`, which the restore
 * itself walks): asked here, so a bad range is refused naming `to` before anything is read.
 */
export const restoreBody = fields({ from: day, to: day, subscriptionId: subscriptionId.optional() }).superRefine(
  (range, ctx) => {
    try {
      daysBetween(range.from, range.to);
    } catch (error) {
      if (!(error instanceof ArchiveFormatError)) throw error;
      ctx.addIssue({ code: 'custom', path: ['to'], message: error.message });
    }
  },
);

export function parseRestore(body: Json): RestoreRequest {
  return parseWith(restoreBody, body);
}

/** `{action: 'archive', maxObjects?}`: how many objects this invocation may write at most. */
export const archiveRunBody = z.object({
  maxObjects: z
    .number(rule('must be a positive whole number'))
    .int(rule('must be a positive whole number'))
    .min(1, rule('must be a positive whole number'))
    .optional(),
});

export function parseArchiveRun(body: Record<string, unknown>): { maxObjects?: number } {
  const { maxObjects } = parseWith(archiveRunBody, body);
  return maxObjects === undefined ? {} : { maxObjects };
}

import { z } from 'zod';
import { InvalidPolicyError } from '#domain/errors.ts';
import {
  DEFAULT_REPLAY_STATES,
  isReplayableState,
  resolveReplayPolicy,
  type ReplayableState,
  type ReplayCriteria,
} from '#domain/replay.ts';
import { REPLAYABLE_STATES } from '#domain/states.ts';
import { type Json, parseBody } from '#app/parse.ts';
import { fields, instantBound, rule, subscriptionId, tenantId } from '#app/schema/common.ts';
import { parseWith } from '#app/schema/refuse.ts';
import type { BulkReplayRequest } from './bulk-replay.ts';

const OPERATOR_PATTERN = /^[\x20-\x7e]{1,200}$/;
const STATES_RULE = `must be a non-empty array of ${REPLAYABLE_STATES.join(', ')}`;

/** Which states to replay: the dead letters unless asked; each once, in a stable order (the audit record shows them). */
const replayStates = z
  .array(z.unknown(), rule(STATES_RULE))
  .min(1, rule(STATES_RULE))
  // Refused as a whole (`states`), not per element: the rule is about the list.
  .refine((states) => states.every(isReplayableState), rule(STATES_RULE))
  .optional()
  .transform((states): readonly ReplayableState[] =>
    [...new Set((states as ReplayableState[] | undefined) ?? DEFAULT_REPLAY_STATES)].sort(),
  )
  .meta({
    type: 'array',
    minItems: 1,
    items: { enum: [...REPLAYABLE_STATES] },
    default: [...DEFAULT_REPLAY_STATES].sort(),
  } as Record<string, unknown>);

/**
 * This replay's spread window. Its bounds are the replay policy's own (`windowSeconds` in
 * lambdas/domain/replay.ts), asked of the domain, so the configured window and a requested one
 * cannot be held to different limits.
 */
const replayWindowSeconds = z
  .number(rule('must be a whole number of seconds'))
  .superRefine((seconds, ctx) => {
    try {
      resolveReplayPolicy({ windowSeconds: seconds });
    } catch (error) {
      if (!(error instanceof InvalidPolicyError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.rule });
    }
  })
  .meta({
    type: 'integer',
    description:
      "seconds over which the re-attempts are spread at random (the replay policy's bounds: a day at most); default the deployment's",
  });

/** The bulk replay criteria: the fields of an API body and of a replay-function payload alike. */
const criteriaFields = {
  createdFrom: instantBound('from'),
  createdTo: instantBound('to'),
  states: replayStates,
  subscriptionId: subscriptionId.optional(),
  tenantId: tenantId.optional(),
};

/** `POST /v1/replays` and the replay function's bulk payload. */
export const bulkReplayBody = fields({
  ...criteriaFields,
  dryRun: z.boolean(rule('must be true or false')).optional(),
  windowSeconds: replayWindowSeconds.optional(),
  operator: z
    .string(rule('must be 1 to 200 printable ASCII characters'))
    .regex(OPERATOR_PATTERN, rule('must be 1 to 200 printable ASCII characters'))
    .optional(),
}).superRefine((body, ctx) => {
  if (body.createdTo < body.createdFrom)
    ctx.addIssue({ code: 'custom', path: ['createdTo'], message: 'must not be before createdFrom' });
});

/** The fields a bulk replay takes (the replay function checks a payload against the same list). */
export const BULK_REPLAY_FIELDS = Object.keys(bulkReplayBody.shape) as readonly (keyof typeof bulkReplayBody.shape)[];

function toRequest(body: z.output<typeof bulkReplayBody>, principal: string): BulkReplayRequest {
  const criteria: ReplayCriteria = {
    states: body.states,
    ...(body.subscriptionId !== undefined ? { subscriptionId: body.subscriptionId } : {}),
    ...(body.tenantId !== undefined ? { tenantId: body.tenantId } : {}),
    createdFrom: body.createdFrom,
    createdTo: body.createdTo,
  };
  return {
    criteria,
    dryRun: body.dryRun ?? false,
    // Who asked: as declared, else the authenticated principal.
    operator: body.operator ?? principal,
    principal,
    ...(body.windowSeconds !== undefined ? { windowSeconds: body.windowSeconds } : {}),
  };
}

/** A bulk replay from a replay-function payload (already an object). */
export function parseBulkReplay(body: Json, principal: string): BulkReplayRequest {
  return toRequest(parseWith(bulkReplayBody, body), principal);
}

/** A bulk replay from an API body (its text, at most 16 KiB). */
export function parseBulkReplayBody(raw: string | null | undefined, principal: string): BulkReplayRequest {
  return toRequest(parseBody(raw, bulkReplayBody, 16 * 1024), principal);
}

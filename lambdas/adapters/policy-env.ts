import type { Deps } from '#app/deps.ts';
import { resolveArchivePolicy } from '#domain/archive.ts';
import { resolveAutoPausePolicy } from '#domain/auto-pause.ts';
import { resolveNoticePolicy } from '#domain/notices.ts';
import { InvalidPolicyError } from '#domain/errors.ts';
import { resolvePauseLimit, resolveRateLimit } from '#domain/rate-limit.ts';
import { resolveReplayPolicy } from '#domain/replay.ts';
import { resolveRetentionPolicy } from '#domain/retention.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS, type EnvName } from '#config/topology.ts';

type Vars = Partial<Record<EnvName, string>>;
/** The dependencies that are policies read from numbers in the environment. */
export type PolicyDep =
  | 'autoPause'
  | 'replayPolicy'
  | 'customerReplayLimit'
  | 'customerPauseLimit'
  | 'retention'
  | 'archivePolicy'
  | 'noticePolicy';

/**
 * Builds a policy from numbers in the environment through the domain's own validation. A
 * refusal names the variable that carries the refused field (`fields` maps field → variable).
 */
function policyFrom<T>(
  vars: Vars,
  fields: Readonly<Record<string, EnvName>>,
  resolve: (override: Record<string, number>) => T,
): T {
  const override = Object.fromEntries(
    Object.entries(fields).map(([field, variable]) => [field, Number(vars[variable] ?? ENV_DEFAULTS[variable])]),
  );
  try {
    return resolve(override);
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    const variable = fields[error.field] ?? Object.values(fields)[0]!;
    throw new InvalidEnvironmentError(variable, error.message, { cause: error });
  }
}

/**
 * Each policy dependency from its variables; a variable the function does not declare keeps its
 * documented default (ENV_DEFAULTS), which is what the tests of the defaults read back.
 */
export const POLICIES_FROM_ENV: { readonly [K in PolicyDep]: (vars: Vars) => Deps[K] } = {
  autoPause: (vars) => policyFrom(vars, { afterSeconds: 'HOOKLINE_AUTO_PAUSE_SECONDS' }, resolveAutoPausePolicy),
  replayPolicy: (vars) => policyFrom(vars, { windowSeconds: 'HOOKLINE_REPLAY_WINDOW_SECONDS' }, resolveReplayPolicy),
  customerReplayLimit: (vars) =>
    policyFrom(
      vars,
      { limit: 'HOOKLINE_CUSTOMER_REPLAY_LIMIT', windowSeconds: 'HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS' },
      resolveRateLimit,
    ),
  customerPauseLimit: (vars) =>
    policyFrom(
      vars,
      { limit: 'HOOKLINE_CUSTOMER_PAUSE_LIMIT', windowSeconds: 'HOOKLINE_CUSTOMER_PAUSE_WINDOW_SECONDS' },
      resolvePauseLimit,
    ),
  retention: (vars) =>
    policyFrom(
      vars,
      {
        deliveredDays: 'HOOKLINE_RETENTION_DELIVERED_DAYS',
        deadLetterDays: 'HOOKLINE_RETENTION_DEAD_LETTER_DAYS',
        archiveDelivered: 'HOOKLINE_ARCHIVE_DELIVERED',
      },
      resolveRetentionPolicy,
    ),
  archivePolicy: (vars) =>
    policyFrom(
      vars,
      {
        batchSize: 'HOOKLINE_ARCHIVE_BATCH_SIZE',
        restoreHoldDays: 'HOOKLINE_RESTORE_HOLD_DAYS',
        lockSeconds: 'HOOKLINE_ARCHIVE_LOCK_SECONDS',
      },
      resolveArchivePolicy,
    ),
  noticePolicy: (vars) =>
    policyFrom(
      vars,
      {
        firstAfterSeconds: 'HOOKLINE_NOTICE_FIRST_SECONDS',
        secondAfterSeconds: 'HOOKLINE_NOTICE_SECOND_SECONDS',
        beforeExpirySeconds: 'HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS',
        lostAfterSeconds: 'HOOKLINE_NOTICE_LOST_AFTER_SECONDS',
        recovered: 'HOOKLINE_NOTICE_RECOVERED',
        leaseSeconds: 'HOOKLINE_NOTICE_LEASE_SECONDS',
      },
      resolveNoticePolicy,
    ),
};

/** Every policy dependency at once (tests of the defaults, and of what the CDK hands each function). */
export function policiesFrom(vars: Vars): { readonly [K in PolicyDep]: Deps[K] } {
  return Object.fromEntries(Object.entries(POLICIES_FROM_ENV).map(([dep, from]) => [dep, from(vars)])) as {
    [K in PolicyDep]: Deps[K];
  };
}

import type { RecoveryPolicies } from '#app/deps.ts';
import { resolveArchivePolicy } from '#domain/archive.ts';
import { resolveAutoPausePolicy, type AutoPausePolicy } from '#domain/auto-pause.ts';
import { InvalidPolicyError } from '#domain/errors.ts';
import { resolveRateLimit } from '#domain/rate-limit.ts';
import { resolveReplayPolicy } from '#domain/replay.ts';
import { resolveRetentionPolicy } from '#domain/retention.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS, type EnvName } from '#config/topology.ts';

/** A number from the environment, through the domain's own policy validation (named after the variable on failure). */
function policyFrom<T>(variable: EnvName, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof InvalidPolicyError) throw new InvalidEnvironmentError(variable, error.message, { cause: error });
    throw error;
  }
}

const num = (value: string | undefined, variable: EnvName) => Number(value ?? ENV_DEFAULTS[variable]);

export function autoPausePolicy(value: string | undefined): AutoPausePolicy {
  return policyFrom('HOOKLINE_AUTO_PAUSE_SECONDS', () => resolveAutoPausePolicy({ afterSeconds: num(value, 'HOOKLINE_AUTO_PAUSE_SECONDS') }));
}

/**
 * The recovery policies from a function's declared environment; a policy the function does not
 * declare keeps its documented default (ENV_DEFAULTS), since that function never applies it.
 */
export function recoveryPolicies(vars: Partial<Record<EnvName, string>>): RecoveryPolicies {
  return {
    replay: policyFrom('HOOKLINE_REPLAY_WINDOW_SECONDS', () =>
      resolveReplayPolicy({ windowSeconds: num(vars.HOOKLINE_REPLAY_WINDOW_SECONDS, 'HOOKLINE_REPLAY_WINDOW_SECONDS') }),
    ),
    customerReplayLimit: policyFrom('HOOKLINE_CUSTOMER_REPLAY_LIMIT', () =>
      resolveRateLimit({
        limit: num(vars.HOOKLINE_CUSTOMER_REPLAY_LIMIT, 'HOOKLINE_CUSTOMER_REPLAY_LIMIT'),
        windowSeconds: num(vars.HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS, 'HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS'),
      }),
    ),
    autoPause: autoPausePolicy(vars.HOOKLINE_AUTO_PAUSE_SECONDS),
    retention: policyFrom('HOOKLINE_RETENTION_DELIVERED_DAYS', () =>
      resolveRetentionPolicy({
        deliveredDays: num(vars.HOOKLINE_RETENTION_DELIVERED_DAYS, 'HOOKLINE_RETENTION_DELIVERED_DAYS'),
        deadLetterDays: num(vars.HOOKLINE_RETENTION_DEAD_LETTER_DAYS, 'HOOKLINE_RETENTION_DEAD_LETTER_DAYS'),
      }),
    ),
    archive: policyFrom('HOOKLINE_ARCHIVE_BATCH_SIZE', () =>
      resolveArchivePolicy({
        batchSize: num(vars.HOOKLINE_ARCHIVE_BATCH_SIZE, 'HOOKLINE_ARCHIVE_BATCH_SIZE'),
        restoreHoldDays: num(vars.HOOKLINE_RESTORE_HOLD_DAYS, 'HOOKLINE_RESTORE_HOLD_DAYS'),
        lockSeconds: num(vars.HOOKLINE_ARCHIVE_LOCK_SECONDS, 'HOOKLINE_ARCHIVE_LOCK_SECONDS'),
      }),
    ),
  };
}

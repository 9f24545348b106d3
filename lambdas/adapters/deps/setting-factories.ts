import { InvalidPolicyError } from '#domain/errors.ts';
import { parseAllowedPorts, type PortRanges } from '#domain/target-ports.ts';
import { parseFlag, parseNonNegativeInt, parsePositiveInt, parseRetryPolicyEnv } from '#config/env.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { NO_SETTING, type EnvName } from '#config/topology.ts';
import { isEmailAddress } from '#domain/notices.ts';
import { EVENT_TYPE_CHECKS, isEventTypeCheck, type EventTypeCheck } from '#domain/event-type-catalog.ts';
import { NodeHttpSender } from '../node-http-sender.ts';
import { POLICIES_FROM_ENV, type PolicyDep } from '../policy-env.ts';
import type { Factories } from './factory.ts';

/** What the sender names itself in every webhook request (the bench's signed raw POSTs send the same). */
export const USER_AGENT = 'Hookline/0.1 (+webhooks)';

/** The domain's port list from a variable; a refusal names the variable. */
function allowedPortsFromEnv(name: EnvName, value: string): PortRanges {
  try {
    return parseAllowedPorts(value);
  } catch (error) {
    if (!(error instanceof InvalidPolicyError)) throw error;
    throw new InvalidEnvironmentError(name, error.rule, { cause: error });
  }
}

type SettingDep =
  | 'attemptTimeoutMs'
  | 'sweepGraceSeconds'
  | 'inFlightWaitSeconds'
  | 'slowAfterMs'
  | 'defaultRetryPolicy'
  | 'allowPrivateTargets'
  | 'allowedPorts'
  | PolicyDep
  | 'noticeSettings'
  | 'consoleSettings'
  | 'eventTypeCheck';

/** Settings parsed from the environment (no client behind them). */
export const SETTING_FACTORIES: Factories<SettingDep> = {
  attemptTimeoutMs: (v) => parsePositiveInt('HOOKLINE_SENDER_TIMEOUT_MS', v.HOOKLINE_SENDER_TIMEOUT_MS),
  sweepGraceSeconds: (v) => parsePositiveInt('HOOKLINE_SWEEP_GRACE_SECONDS', v.HOOKLINE_SWEEP_GRACE_SECONDS),
  inFlightWaitSeconds: (v) => parsePositiveInt('HOOKLINE_IN_FLIGHT_WAIT_SECONDS', v.HOOKLINE_IN_FLIGHT_WAIT_SECONDS),
  slowAfterMs: (v) => parseNonNegativeInt('HOOKLINE_SLOW_LANE_AFTER_MS', v.HOOKLINE_SLOW_LANE_AFTER_MS),
  defaultRetryPolicy: (v) => parseRetryPolicyEnv('HOOKLINE_DEFAULT_RETRY_POLICY', v.HOOKLINE_DEFAULT_RETRY_POLICY),
  allowPrivateTargets: (v) => parseFlag('HOOKLINE_ALLOW_PRIVATE_TARGETS', v.HOOKLINE_ALLOW_PRIVATE_TARGETS),
  allowedPorts: (v) => allowedPortsFromEnv('HOOKLINE_ALLOWED_PORTS', v.HOOKLINE_ALLOWED_PORTS),
  ...POLICIES_FROM_ENV,
  noticeSettings: (v) =>
    optional(
      'HOOKLINE_NOTICE_SUPPORT_EMAIL',
      v.HOOKLINE_NOTICE_SUPPORT_EMAIL,
      'supportEmail',
      (a) => isEmailAddress(a) || 'must be one email address',
    ),
  consoleSettings: (v) =>
    optional(
      'HOOKLINE_CONSOLE_URL',
      v.HOOKLINE_CONSOLE_URL,
      'consoleUrl',
      (u) => /^https?:\/\/[^\s]+$/.test(u) || 'must be an http(s) URL',
    ),
  eventTypeCheck: (v) => eventTypeCheckFromEnv(v.HOOKLINE_EVENT_TYPE_CHECK),
};

/** HOOKLINE_EVENT_TYPE_CHECK, checked: a bad value stops the function at cold start, naming the variable. */
function eventTypeCheckFromEnv(value: string): EventTypeCheck {
  if (!isEventTypeCheck(value))
    throw new InvalidEnvironmentError(
      'HOOKLINE_EVENT_TYPE_CHECK',
      `must be one of ${EVENT_TYPE_CHECKS.join(', ')}, not '${value}'`,
    );
  return value;
}

/** An optional setting: absent when it says `none`, else checked (`check` answers true or why not). */
function optional<K extends string>(
  name: EnvName,
  value: string,
  field: K,
  check: (value: string) => true | string,
): Partial<Record<K, string>> {
  if (value === NO_SETTING) return {};
  const verdict = check(value);
  if (verdict !== true) throw new InvalidEnvironmentError(name, `${verdict} (or '${NO_SETTING}'), not '${value}'`);
  return { [field]: value } as Partial<Record<K, string>>;
}

/** The sender's HTTP client, refusing what the target rules refuse at every send. */
export const HTTP_FACTORIES: Factories<'http'> = {
  http: (v, s) =>
    new NodeHttpSender(
      {
        allowPrivate: SETTING_FACTORIES.allowPrivateTargets(v, s),
        allowedPorts: SETTING_FACTORIES.allowedPorts(v, s),
        userAgent: USER_AGENT,
      },
      s.clock.now,
    ),
};

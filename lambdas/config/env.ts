import { resolveRetryPolicy, type RetryPolicy } from '#domain/retry-policy.ts';
import { InvalidEnvironmentError, MissingEnvironmentError } from './errors.ts';
import { ENV_DEFAULTS, FUNCTIONS, type EnvName, type FunctionKey } from './topology.ts';

export type Env = Readonly<Record<string, string | undefined>>;
type EnvOf<K extends FunctionKey> = Record<(typeof FUNCTIONS)[K]['environment'][number], string>;

/**
 * The variables a function declares in topology.ts, and only those: a handler cannot read a
 * variable the stack does not set, and a missing one fails at cold start with its name.
 */
export function readFunctionEnv<K extends FunctionKey>(fn: K, env: Env): EnvOf<K> {
  const out: Record<string, string> = {};
  for (const name of FUNCTIONS[fn].environment as readonly EnvName[]) {
    // An empty variable means unset, so the default applies.
    const value = env[name] || ENV_DEFAULTS[name];
    if (value === undefined || value === '') throw new MissingEnvironmentError(name, fn);
    out[name] = value;
  }
  return out as EnvOf<K>;
}

export function parseFlag(name: string, value: string): boolean {
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new InvalidEnvironmentError(name, `must be 0 or 1, not '${value}'`);
}

export function parsePositiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidEnvironmentError(name, `must be a positive integer, not '${value}'`);
  return n;
}

/** A whole number of zero or more (0 usually meaning "off"). */
export function parseNonNegativeInt(name: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidEnvironmentError(name, `must be a whole number of 0 or more, not '${value}'`);
  return n;
}

export function parseRetryPolicyEnv(name: string, value: string): RetryPolicy {
  try {
    return resolveRetryPolicy(JSON.parse(value));
  } catch (cause) {
    throw new InvalidEnvironmentError(name, `is not a valid retry policy: ${(cause as Error).message}`, { cause });
  }
}

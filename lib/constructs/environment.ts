import {
  COMMON_ENVIRONMENT,
  ENV_DEFAULTS,
  FUNCTIONS,
  type EnvName,
  type FunctionKey,
} from '../../lambdas/config/topology.ts';
import { MissingEnvironmentValueError } from '../errors.ts';

/**
 * Deploy-time values for environment variables, by name (table names, queue URLs, the
 * admin-key secret ARN, settings from props). A function only receives the names its
 * FUNCTIONS entry lists, so handing every function the same map cannot leak access.
 */
export type EnvironmentValues = Readonly<Partial<Record<EnvName, string>>>;

/**
 * The exact `Environment.Variables` of one function: each name in `FUNCTIONS[key].environment`
 * resolved from `values`, else from `ENV_DEFAULTS`, plus `COMMON_ENVIRONMENT`. A name with
 * neither a value nor a default fails the synth instead of failing the handler at cold start.
 */
export function functionEnvironment(key: FunctionKey, values: EnvironmentValues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of FUNCTIONS[key].environment as readonly EnvName[]) {
    const value = values[name] ?? ENV_DEFAULTS[name];
    if (value === undefined) throw new MissingEnvironmentValueError(key, name);
    env[name] = value;
  }
  return { ...env, ...COMMON_ENVIRONMENT };
}

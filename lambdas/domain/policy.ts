import { InvalidPolicyError } from './errors.ts';

/** Bounds of one numeric policy field. */
export interface FieldLimit {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

/**
 * Merges a partial override (parsed JSON from configuration) onto `base`, refusing unknown
 * fields, non-numbers and values outside `limits`: a policy that loads is one the code can use.
 */
export function mergeNumericPolicy<T extends object>(
  policy: string,
  override: unknown,
  base: T,
  limits: Readonly<Record<keyof T, FieldLimit>>,
): T {
  if (override === undefined || override === null) return base;
  if (typeof override !== 'object' || Array.isArray(override))
    throw new InvalidPolicyError(policy, '', 'must be an object');
  const merged: Record<string, number> = { ...(base as Record<string, number>) };
  for (const [key, value] of Object.entries(override)) {
    const limit = Object.hasOwn(limits, key) ? limits[key as keyof T] : undefined;
    if (!limit) throw new InvalidPolicyError(policy, key, `is not a field (known: ${Object.keys(limits).join(', ')})`);
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new InvalidPolicyError(policy, key, 'must be a number');
    if (limit.integer && !Number.isInteger(value)) throw new InvalidPolicyError(policy, key, 'must be a whole number');
    if (value < limit.min || value > limit.max)
      throw new InvalidPolicyError(policy, key, `must be between ${limit.min} and ${limit.max}`);
    merged[key] = value;
  }
  return Object.freeze(merged) as unknown as T;
}

/** One numeric field of a policy: its default beside the bounds every override must keep to. */
export interface FieldSpec extends FieldLimit {
  readonly default: number;
}

/** The values of a policy declared by `numericPolicy`: a number per field (the fields' TSDoc carries over). */
export type PolicyValues<S> = { readonly [K in keyof S]: number };

export interface NumericPolicy<S> {
  /** The defaults, frozen: the one definition ENV_DEFAULTS and the CDK props derive theirs from. */
  readonly defaults: PolicyValues<S>;
  /** `mergeNumericPolicy` of an override onto `base` (the defaults unless given). */
  readonly resolve: (override: unknown, base?: PolicyValues<S>) => PolicyValues<S>;
}

/**
 * Declares a numeric policy once: each field's default next to its bounds, so no other file
 * has to restate either. The defaults go through the same validation as an override, so a
 * default moved outside its own bounds fails as soon as the module loads.
 */
export function numericPolicy<S extends Record<string, FieldSpec>>(policy: string, spec: S): NumericPolicy<S> {
  const limits: Readonly<Record<keyof S, FieldLimit>> = spec;
  const declared = Object.fromEntries(
    Object.entries(spec).map(([key, field]) => [key, field.default]),
  ) as PolicyValues<S>;
  const defaults = mergeNumericPolicy(policy, declared, declared, limits);
  return { defaults, resolve: (override, base = defaults) => mergeNumericPolicy(policy, override, base, limits) };
}

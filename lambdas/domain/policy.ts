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
export function mergeNumericPolicy<T extends object>(policy: string, override: unknown, base: T, limits: Readonly<Record<keyof T, FieldLimit>>): T {
  if (override === undefined || override === null) return base;
  if (typeof override !== 'object' || Array.isArray(override)) throw new InvalidPolicyError(policy, '', 'must be an object');
  const merged: Record<string, number> = { ...(base as Record<string, number>) };
  for (const [key, value] of Object.entries(override)) {
    const limit = Object.hasOwn(limits, key) ? limits[key as keyof T] : undefined;
    if (!limit) throw new InvalidPolicyError(policy, key, `is not a field (known: ${Object.keys(limits).join(', ')})`);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidPolicyError(policy, key, 'must be a number');
    if (limit.integer && !Number.isInteger(value)) throw new InvalidPolicyError(policy, key, 'must be a whole number');
    if (value < limit.min || value > limit.max) throw new InvalidPolicyError(policy, key, `must be between ${limit.min} and ${limit.max}`);
    merged[key] = value;
  }
  return Object.freeze(merged) as unknown as T;
}

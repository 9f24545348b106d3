import { FUNCTIONS, RESERVED_CONCURRENCY_DEFAULTS, type FunctionKey } from '../../lambdas/config/topology.ts';
import { InvalidPropError, ReservedConcurrencyError } from '../errors.ts';

/**
 * Reserved concurrency by function (the `reservedConcurrency` prop). A function left out keeps
 * RESERVED_CONCURRENCY_DEFAULTS (no reservation); docs/aws.md, "Reserved concurrency", says what to set.
 */
export type ReservedConcurrency = Readonly<Partial<Record<FunctionKey, number>>>;

/** The reservation function `key` gets: `value`, else the topology default; one Lambda would refuse throws. */
export function reservedConcurrencyOf(key: FunctionKey, value: number | undefined): number | undefined {
  const reserved = value ?? RESERVED_CONCURRENCY_DEFAULTS[key];
  // Lambda takes 0, but 0 stops the function and the pipeline with it: that is an emergency
  // switch for `aws lambda put-function-concurrency`, not a deployment setting.
  if (reserved !== undefined && (!Number.isInteger(reserved) || reserved < 1))
    throw new ReservedConcurrencyError(key, `must be a positive whole number of executions, got ${reserved}`);
  return reserved;
}

/** The whole prop, checked before anything is built: every key a Hookline function, every value one Lambda takes. */
export function validateReservedConcurrency(record: ReservedConcurrency = {}): ReservedConcurrency {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new InvalidPropError(
      'reservedConcurrency',
      `must map function names to executions, got ${JSON.stringify(record)}`,
    );
  for (const [key, value] of Object.entries(record)) {
    if (!Object.hasOwn(FUNCTIONS, key))
      throw new ReservedConcurrencyError(key, `names no Hookline function (${Object.keys(FUNCTIONS).join(', ')})`);
    reservedConcurrencyOf(key as FunctionKey, value);
  }
  return record;
}

/**
 * An SQS event source may run `maxConcurrency` batches at once; a reservation below that makes
 * Lambda throttle the mapping's own invocations, and each throttled batch comes back late and
 * counts a receive (the ingest queue redrives after 5).
 */
export function checkEventSourceReservation(
  key: FunctionKey,
  reserved: number | undefined,
  maxConcurrency: number,
): void {
  if (reserved !== undefined && reserved < maxConcurrency)
    throw new ReservedConcurrencyError(
      key,
      `(${reserved}) is below the ${key} event sources' maxConcurrency (${maxConcurrency} in all): the mappings would be throttled; reserve at least ${maxConcurrency} or lower the maxConcurrency`,
    );
}

/** Errors raised while building the Hookline CDK app: each is a configuration mistake caught at synth time. */

export class HooklineConfigError extends Error {
  override name = 'HooklineConfigError';
}

/** A function's topology lists an environment variable nobody supplies a value for. */
export class MissingEnvironmentValueError extends HooklineConfigError {
  override name = 'MissingEnvironmentValueError';
  constructor(
    readonly functionKey: string,
    readonly variable: string,
  ) {
    super(
      `function '${functionKey}' needs environment variable ${variable}, but no construct provides a value and it has no default`,
    );
  }
}

/** A prop outside the range AWS or the delivery guarantee allows. */
export class InvalidPropError extends HooklineConfigError {
  override name = 'InvalidPropError';
  constructor(
    readonly prop: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${prop} ${message}`, options);
  }
}

/**
 * A reserved concurrency Lambda would refuse (not a positive whole number), that names no deployed
 * function, or that would throttle the function's own event source (below its maxConcurrency).
 */
export class ReservedConcurrencyError extends InvalidPropError {
  override name = 'ReservedConcurrencyError';
  constructor(
    readonly functionKey: string,
    message: string,
  ) {
    super(`reservedConcurrency.${functionKey}`, message);
  }
}

/** topology.ts describes something that cannot work on AWS (e.g. a visibility timeout shorter than 6x the consumer's timeout). */
export class TopologyError extends HooklineConfigError {
  override name = 'TopologyError';
}

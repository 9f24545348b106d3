/** Errors raised by the pure delivery domain. Each names the rule it enforces. */

export class DomainError extends Error {
  override name = 'DomainError';
}

/** A state change the delivery state machine does not allow (e.g. replaying a pending delivery). */
export class InvalidTransitionError extends DomainError {
  override name = 'InvalidTransitionError';
  constructor(
    readonly from: string,
    readonly action: string,
  ) {
    super(`cannot ${action} a delivery in state '${from}'`);
  }
}

/** A retry policy that cannot produce a sane schedule. */
export class InvalidRetryPolicyError extends DomainError {
  override name = 'InvalidRetryPolicyError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(field ? `retryPolicy.${field} ${message}` : `retryPolicy ${message}`);
  }
}

/** A webhook secret that is not `whsec_<base64>` of at least 24 bytes. */
export class InvalidSecretError extends DomainError {
  override name = 'InvalidSecretError';
}

/** A delivery target that Hookline refuses to call (scheme, host or address). */
export class ForbiddenTargetError extends DomainError {
  override name = 'ForbiddenTargetError';
  constructor(
    message: string,
    readonly target: string,
  ) {
    super(message);
  }
}

/** A recovery or retention policy (replay window, rate limit, auto-pause, retention) that cannot be used. */
export class InvalidPolicyError extends DomainError {
  override name = 'InvalidPolicyError';
  constructor(
    readonly policy: string,
    readonly field: string,
    message: string,
  ) {
    super(field ? `${policy}.${field} ${message}` : `${policy} ${message}`);
  }
}

/** An archive object or range that is not what the archive format promises. */
export class ArchiveFormatError extends DomainError {
  override name = 'ArchiveFormatError';
}

/** Errors raised by the pure delivery domain. Each names the rule it enforces, as data as well as in its message. */

export class DomainError extends Error {
  override name = 'DomainError';
}

/**
 * A refusal of one input value, in parts: `path` names the value as the caller wrote it
 * (`retryPolicy.maxDelaySeconds`, `url`; the top-level name when the whole value is refused)
 * and `rule` says what it must be. Callers build their own answer from these parts, so nobody
 * has to take a message apart again.
 */
export interface InputRefusal {
  readonly path: string;
  readonly rule: string;
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

/** A retry policy that cannot produce a sane schedule; `field` is the policy's own field ('' for the whole policy). */
export class InvalidRetryPolicyError extends DomainError implements InputRefusal {
  override name = 'InvalidRetryPolicyError';
  readonly path: string;
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    const path = field ? `retryPolicy.${field}` : 'retryPolicy';
    super(`${path} ${rule}`);
    this.path = path;
  }
}

/** A webhook secret that is not `whsec_<base64>` of at least 24 bytes. */
export class InvalidSecretError extends DomainError {
  override name = 'InvalidSecretError';
}

/** A custom header a subscription may not send; `path` is `headers.<name>` (or `headers` for the set). */
export class InvalidHeaderError extends DomainError implements InputRefusal {
  override name = 'InvalidHeaderError';
  readonly path: string;
  constructor(
    header: string,
    readonly rule: string,
  ) {
    super(header ? `header ${header} ${rule}` : `headers: ${rule}`);
    this.path = header ? `headers.${header}` : 'headers';
  }
}

/** A delivery target that Hookline refuses to call (scheme, host or address); `rule` is what the URL must be. */
export class ForbiddenTargetError extends DomainError implements InputRefusal {
  override name = 'ForbiddenTargetError';
  readonly path = 'url';
  constructor(
    readonly rule: string,
    readonly target: string,
  ) {
    super(`url ${rule}`);
  }
}

/** A recovery or retention policy (replay window, rate limit, auto-pause, retention) that cannot be used. */
export class InvalidPolicyError extends DomainError implements InputRefusal {
  override name = 'InvalidPolicyError';
  readonly path: string;
  constructor(
    readonly policy: string,
    readonly field: string,
    readonly rule: string,
  ) {
    const path = field ? `${policy}.${field}` : policy;
    super(`${path} ${rule}`);
    this.path = path;
  }
}

/** An archive object or range that is not what the archive format promises. */
export class ArchiveFormatError extends DomainError {
  override name = 'ArchiveFormatError';
}

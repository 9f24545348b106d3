/**
 * Errors the services raise, one class per answer a caller can act on. The HTTP layer maps
 * each to a status in one place (handlers/api/errors-to-http.ts).
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The request is malformed; `field` names what to fix. Nothing was stored. */
export class ValidationError extends ServiceError {
  override name = 'ValidationError';
  constructor(
    readonly field: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super('invalid_request', field ? `${field}: ${message}` : message, options);
  }
}

export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
  constructor(kind: 'subscription' | 'delivery' | 'event' | 'route' | 'replay', id: string) {
    super('not_found', `${kind} ${id} does not exist`);
  }
}

/** The resource exists but is in a state that forbids the action (e.g. replaying a pending delivery). */
/** The path exists but not with this HTTP method; `allowed` lists the methods it has. */
export class MethodNotAllowedError extends ServiceError {
  override name = 'MethodNotAllowedError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly allowed: readonly string[],
  ) {
    super('method_not_allowed', `${method} is not supported on ${path} (allowed: ${allowed.join(', ')})`);
  }
}

export class ConflictError extends ServiceError {
  override name = 'ConflictError';
  constructor(message: string) {
    super('conflict', message);
  }
}

/** Too many requests of one kind in the current window; retry after `retryAfterSeconds`. Nothing was changed. */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
  }
}

export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
  constructor(message = 'a valid Authorization: Bearer <key> header is required') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends ServiceError {
  override name = 'ForbiddenError';
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** An archive object did not read back as written: its rows are kept, and the next run writes it again. */
export class ArchiveVerificationError extends Error {
  override name = 'ArchiveVerificationError';
  constructor(
    readonly objectKey: string,
    detail: string,
  ) {
    super(`archive object ${objectKey} failed verification: ${detail}`);
  }
}

/**
 * Another archiver took the run lock (this one stalled past the lock's lifetime). The batch in
 * hand is left to its manifest: the run holding the lock finishes it, so the two never delete
 * rows of the same batch at once.
 */
export class ArchiveLockLostError extends Error {
  override name = 'ArchiveLockLostError';
  constructor(readonly objectKey: string) {
    super(`lost the archive run lock while on ${objectKey}; the run holding it finishes the batch`);
  }
}

/** The sender could not finish a message; the SQS message is reported as a batch item failure. */
export class DeliveryStageError extends Error {
  override name = 'DeliveryStageError';
  constructor(
    readonly stage: 'before_attempt' | 'attempt' | 'after_attempt',
    readonly deliveryId: string,
    options: ErrorOptions,
  ) {
    super(`delivery ${deliveryId} failed ${stage.replace('_', ' ')}: ${(options.cause as Error)?.message ?? options.cause}`, options);
  }
}

/** A message that the sender wants back later (visibility-timeout backoff); not an error in the logs' sense. */
export class RetryLaterSignal extends Error {
  override name = 'RetryLaterSignal';
  constructor(
    readonly deliveryId: string,
    readonly delaySeconds: number,
  ) {
    super(`delivery ${deliveryId} will be retried in ${delaySeconds} s`);
  }
}

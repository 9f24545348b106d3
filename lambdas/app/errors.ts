import type { InputRefusal } from '#domain/errors.ts';

/**
 * Errors the services raise, one class per answer a caller can act on. Which status and code
 * each one gets is decided in one table (handlers/error-map.ts), not here.
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
}

/** How a refused input reads to a caller: `path: rule`, or the rule alone when there is no path. */
export function describeRefusal({ path, rule }: InputRefusal): string {
  return path ? `${path}: ${rule}` : rule;
}

/** The request is malformed; `field` names what to fix and `rule` what it must be. Nothing was stored. */
export class ValidationError extends ServiceError {
  override name = 'ValidationError';
  constructor(
    readonly field: string,
    readonly rule: string,
    options?: ErrorOptions,
  ) {
    super(describeRefusal({ path: field, rule }), options);
  }

  /** The same refusal from a domain error's parts (its path and rule), keeping it as the cause. */
  static from(refusal: InputRefusal & Error): ValidationError {
    return new ValidationError(refusal.path, refusal.rule, { cause: refusal });
  }
}

export class NotFoundError extends ServiceError {
  override name = 'NotFoundError';
  constructor(
    readonly kind: 'subscription' | 'delivery' | 'event' | 'replay' | 'key' | 'portal session' | 'event type',
    readonly id: string,
  ) {
    super(`${kind} ${id} does not exist`);
  }
}

/** No route has this path (whatever the method): the API's surface, not a missing resource. */
export class RouteNotFoundError extends ServiceError {
  override name = 'RouteNotFoundError';
  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(`no route ${method} ${path} (see GET /openapi.json for the routes)`);
  }
}

/** The path exists but not with this HTTP method; `allowed` lists the methods it has. */
export class MethodNotAllowedError extends ServiceError {
  override name = 'MethodNotAllowedError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly allowed: readonly string[],
  ) {
    super(`${method} is not supported on ${path} (allowed: ${allowed.join(', ')})`);
  }
}

/** The resource exists but is in a state that forbids the action (e.g. pausing a disabled subscription). */
export class ConflictError extends ServiceError {
  override name = 'ConflictError';
}

/**
 * An Idempotency-Key (or an event id, which is publish's own key) already used by a different
 * request: another path or body. Nothing was done; a new request needs a new key.
 */
export class IdempotencyKeyReusedError extends ServiceError {
  override name = 'IdempotencyKeyReusedError';
}

/** The first request with this Idempotency-Key is still running; retry once it has answered. Nothing was done. */
export class IdempotencyKeyInProgressError extends ConflictError {
  override name = 'IdempotencyKeyInProgressError';
}

/** Too many requests of one kind in the current window; retry after `retryAfterSeconds`. Nothing was changed. */
export class RateLimitedError extends ServiceError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The request could not be carried out now and nothing was stored; the same request may be sent again after `retryAfterSeconds`. */
export class TemporarilyUnavailableError extends ServiceError {
  override name = 'TemporarilyUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

/** No caller was established (no or a bad key): only public routes answer. */
export class UnauthorizedError extends ServiceError {
  override name = 'UnauthorizedError';
  constructor(message = 'a valid Authorization: Bearer <key> header is required') {
    super(message);
  }
}

/** The caller is known but its key does not allow the action (a tenant key on an admin route). */
export class ForbiddenError extends ServiceError {
  override name = 'ForbiddenError';
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

/** An attempt could not be logged: its number (and the next ones it may take) were logged already. */
export class AttemptNumberTakenError extends Error {
  override name = 'AttemptNumberTakenError';
  constructor(
    readonly deliveryId: string,
    readonly seq: number,
    readonly tried: number,
  ) {
    super(`delivery ${deliveryId}: attempts ${seq} to ${seq + tried - 1} already logged`);
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
    super(
      `delivery ${deliveryId} failed ${stage.replace('_', ' ')}: ${(options.cause as Error)?.message ?? options.cause}`,
      options,
    );
  }
}

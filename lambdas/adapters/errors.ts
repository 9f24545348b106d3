/** A pagination cursor that this service did not issue or that was altered. */
export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
  constructor(options?: ErrorOptions) {
    super('cursor is not valid: pass back the nextCursor of a previous page unchanged', options);
  }
}
/** SQS kept refusing some messages of a batch. */
export class QueueSendError extends Error {
  override name = 'QueueSendError';
}

/** DNS resolved a delivery target to an address the deployment refuses (SSRF / DNS rebinding). */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EHOOKLINE_FORBIDDEN_ADDRESS';
}

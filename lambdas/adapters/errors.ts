/** SQS kept refusing some messages of a batch. */
export class QueueSendError extends Error {
  override name = 'QueueSendError';
}

/** DNS resolved a delivery target to an address the deployment refuses (SSRF / DNS rebinding). */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EHOOKLINE_FORBIDDEN_ADDRESS';
}

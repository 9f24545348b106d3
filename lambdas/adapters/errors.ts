/** SQS kept refusing some messages of a batch. */
export class QueueSendError extends Error {
  override name = 'QueueSendError';
}

/** DNS resolved a delivery target to an address the deployment refuses (SSRF / DNS rebinding). */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
  readonly code = 'EHOOKLINE_FORBIDDEN_ADDRESS';
}

/** Sealed signing secrets that cannot be opened (another subscription's blob, another key, altered bytes) or sealed. */
export class SealedSecretsError extends Error {
  override name = 'SealedSecretsError';
}

/** A stored or carried webhook body whose bytes do not inflate to the text its sha256 names: never sent, never archived as it is. */
export class BodyIntegrityError extends Error {
  override name = 'BodyIntegrityError';
}

/** A delivery-queue message that is not one the queue adapter wrote (no ids, a pack that is not a list). */
export class MalformedDeliveryMessageError extends Error {
  override name = 'MalformedDeliveryMessageError';
}

import type { SealedSecrets } from '#domain/types.ts';

/**
 * Seals a subscription's signing secrets before they are stored. Only the function that
 * creates subscriptions (api) is given one: on AWS it may generate data keys but not decrypt.
 */
export interface SecretSealer {
  seal(subscriptionId: string, secrets: readonly string[]): Promise<SealedSecrets>;
}

/**
 * Opens sealed secrets for signing. Only the function that signs (sender) is given one: on AWS
 * it may decrypt but not generate data keys. A blob sealed for another subscription is refused.
 */
export interface SecretOpener {
  open(subscriptionId: string, sealed: SealedSecrets): Promise<readonly string[]>;
}

import type { Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import { OpenedSecretsCache } from './opened-secrets-cache.ts';

/** One per container, whichever opener (KMS or the local key) the function was given. */
const opened = new OpenedSecretsCache();

/**
 * A subscription's secrets in plain text, newest first, shared and read-only: sealed ones
 * through the opener (once per blob per container, opened-secrets-cache.ts); a row from before
 * sealing holds a plain list until the migration seals it (docs/design.md, "Secrets at rest").
 */
export function openSecrets(deps: Pick<Deps, 'secretOpener'>, subscription: Subscription): Promise<readonly string[]> {
  const stored = subscription.secrets;
  return stored.scheme === 'plain'
    ? Promise.resolve(stored.secrets)
    : opened.open(deps.secretOpener, subscription.id, stored);
}

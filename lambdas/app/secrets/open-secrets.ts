import type { Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';

/**
 * A subscription's secrets in plain text, newest first, for one use only: sealed ones through
 * the opener; a row from before sealing holds a plain list until the migration seals it
 * (docs/design.md, "Secrets at rest").
 */
export async function openSecrets(deps: Pick<Deps, 'secretOpener'>, subscription: Subscription): Promise<readonly string[]> {
  const stored = subscription.secrets;
  return stored.scheme === 'plain' ? stored.secrets : deps.secretOpener.open(subscription.id, stored);
}

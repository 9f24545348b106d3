import type { Deps } from '#app/deps.ts';

/**
 * The one-time migration of rows written before secrets were sealed: each subscription whose
 * row still holds a plain list is sealed and rewritten (conditionally, so concurrent runs
 * write once). Idempotent; returns how many rows it sealed. The local runtime runs it at
 * start-up; on AWS the api function (the only one that may seal) runs it once per container.
 */
export async function sealPlainSecrets(deps: Pick<Deps, 'subscriptions' | 'secretSealer'>): Promise<number> {
  let sealed = 0;
  for (const subscription of await deps.subscriptions.all()) {
    const stored = subscription.secrets;
    if (stored.scheme !== 'plain') continue;
    if (
      await deps.subscriptions.sealPlainSecrets(
        subscription.id,
        await deps.secretSealer.seal(subscription.id, stored.secrets),
      )
    )
      sealed++;
  }
  return sealed;
}

import { liveSecretIndexes } from '#domain/subscription-states.ts';
import { publicKeyOf, type SigningScheme } from '#domain/signing.ts';
import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import type { Principal } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError, ValidationError } from '#app/errors.ts';
import { openSecrets } from '#app/secrets/open-secrets.ts';
import { checkBroughtSecret, type RotateSecretRequest } from '#app/subscriptions/subscription-request.ts';
import { getSubscription, newSecret, refuseDeleted } from '#app/subscriptions/subscriptions.ts';

/** Secrets signing at once: the new one and the old ones still in their overlap. More would slow every attempt. */
export const MAX_LIVE_SECRETS = 5;

/** One signing secret as its owner reads it: the secret (v1) or the public key (v1a; the signing key never leaves). */
export interface SecretEntry {
  readonly secret?: string;
  readonly publicKey?: string;
  /** When it stops signing; null for the newest, which signs until the next rotation. */
  readonly expiresAt: string | null;
}

export interface SecretsView {
  readonly signatureScheme: SigningScheme;
  /** Newest first; only the ones still signing. */
  readonly secrets: readonly SecretEntry[];
}

type SecretDeps = Pick<Deps, 'subscriptions' | 'clock' | 'secretOpener'>;

const schemeOf = (s: Subscription): SigningScheme => s.signatureScheme ?? 'v1';

/** The live secrets of a subscription, opened: [secret, expiry, public key] newest first. */
async function liveSecrets(deps: SecretDeps, subscription: Subscription, nowMs: number) {
  const all = await openSecrets(deps, subscription);
  return liveSecretIndexes(subscription, all.length, nowMs).map((i) => ({
    secret: all[i]!,
    expiresAt: subscription.secretExpiry?.[i] ?? null,
    publicKey: subscription.publicKeys?.[i],
  }));
}

function view(
  subscription: Subscription,
  entries: readonly { secret: string; expiresAt: string | null; publicKey?: string }[],
): SecretsView {
  const scheme = schemeOf(subscription);
  return {
    signatureScheme: scheme,
    secrets: entries.map((e) =>
      scheme === 'v1a'
        ? { publicKey: e.publicKey ?? publicKeyOf(e.secret), expiresAt: e.expiresAt }
        : { secret: e.secret, expiresAt: e.expiresAt },
    ),
  };
}

/** `GET /v1/subscriptions/{id}/secret`: the secrets signing now, for the admin or the owning tenant. */
export async function readSecrets(deps: SecretDeps, principal: Principal, id: string): Promise<SecretsView> {
  const subscription = await getSubscription(deps, principal, id);
  refuseDeleted(subscription, 'sign anything');
  return view(subscription, await liveSecrets(deps, subscription, deps.clock.now()));
}

/**
 * Rotates the signing secret: the new one (fresh, or the caller's own) signs at once; each old
 * one keeps signing beside it until `overlapSeconds` from now (or its own earlier expiry), then
 * drops out by itself (the sender skips expired ones). Overlap 0 ends the old ones now. The
 * answer shows the new secret (v1) or its public key (v1a) and every secret still signing.
 */
export async function rotateSecret(
  deps: SecretDeps & Pick<Deps, 'secretSealer'>,
  principal: Principal,
  id: string,
  request: RotateSecretRequest,
): Promise<SecretsView & { readonly secret?: string; readonly publicKey?: string }> {
  const current = await getSubscription(deps, principal, id);
  refuseDeleted(current, 'rotate its secret');
  const scheme = schemeOf(current);
  const nowMs = deps.clock.now();
  const fresh = request.secret === undefined ? newSecret(deps, scheme) : checkBroughtSecret(request.secret, scheme);
  const overlapEnd = nowMs + request.overlapSeconds * 1000;
  const old = (await liveSecrets(deps, current, nowMs))
    .map((e) => ({
      ...e,
      expiresAt: iso(Math.min(overlapEnd, e.expiresAt === null ? Infinity : Date.parse(e.expiresAt))),
    }))
    .filter((e) => Date.parse(e.expiresAt) > nowMs);
  if (old.some((e) => e.secret === fresh))
    throw new ValidationError('secret', "is already one of this subscription's secrets; bring a new one");
  const entries = [
    { secret: fresh, expiresAt: null as string | null, ...(scheme === 'v1a' ? { publicKey: publicKeyOf(fresh) } : {}) },
    ...old,
  ].slice(0, MAX_LIVE_SECRETS);
  const updated = await deps.subscriptions.replaceSecrets(
    id,
    {
      sealed: await deps.secretSealer.seal(
        id,
        entries.map((e) => e.secret),
      ),
      expiry: entries.map((e) => e.expiresAt),
      ...(scheme === 'v1a' ? { publicKeys: entries.map((e) => e.publicKey ?? publicKeyOf(e.secret)) } : {}),
    },
    iso(nowMs),
    current.secretsVersion,
  );
  if (!updated)
    throw new ConflictError(
      `subscription ${id}'s secrets changed meanwhile (another rotation); read it and rotate again`,
    );
  const shown = view(updated, entries);
  return { ...shown, ...(scheme === 'v1a' ? { publicKey: shown.secrets[0]!.publicKey! } : { secret: fresh }) };
}

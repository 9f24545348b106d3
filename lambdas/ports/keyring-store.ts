/**
 * One data key of the signing-secrets keyring: its KMS-encrypted form, shared by every
 * subscription sealed while it was current (lambdas/adapters/kms-secret-cipher.ts).
 */
export interface RingKey {
  /** The ring's name, e.g. `2026-12`: the month it was current, also in its KMS encryption context. */
  readonly ring: string;
  /** The data key as KMS GenerateDataKey encrypted it (base64). */
  readonly encryptedKey: string;
  readonly createdAt: string;
}

/**
 * Where the sealer finds the current data key, so that every container seals with the same
 * one. Only the sealer reads it: a sealed blob carries its encrypted key, so the keyring is
 * never needed to open one, and losing it loses nothing (the next seal makes a new key).
 */
export interface KeyringStore {
  get(ring: string): Promise<RingKey | undefined>;
  /** Stores the ring's key unless it already has one; false when another container got there first. */
  create(key: RingKey): Promise<boolean>;
}

import { KMSClient } from '@aws-sdk/client-kms';
import type { EnvName } from '#config/topology.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { parsePositiveInt } from '#config/env.ts';
import { KmsSecretOpener, KmsSecretSealer } from '../kms-secret-cipher.ts';
import { LocalKeySecretCipher } from '../local-key-secret-cipher.ts';
import { DynamoDbKeyringStore } from '../dynamodb-keyring-store.ts';
import type { Factories, Shared, Vars } from './factory.ts';

/** The value of HOOKLINE_SECRETS_*_KEY_ID that means "the local key file", never a KMS key. */
export const LOCAL_SECRETS_KEY_ID = 'local';

/** The local key where the variable says `local` (and the local runtime gave one), else KMS envelope encryption under that key. */
function secretsCipher<T>(
  name: EnvName,
  v: Vars,
  s: Shared,
  kms: (client: KMSClient, keyId: string) => T,
): T | LocalKeySecretCipher {
  const keyId = v[name];
  if (keyId !== LOCAL_SECRETS_KEY_ID) return kms(s.options.clients?.kms ?? new KMSClient({}), keyId);
  if (!s.options.localSecretsKey)
    throw new InvalidEnvironmentError(
      name,
      `is '${LOCAL_SECRETS_KEY_ID}' but no local secrets key was given (only the local runtime has one)`,
    );
  return new LocalKeySecretCipher(s.options.localSecretsKey);
}

/** Sealing (the api) and opening (the sender) signing secrets: only those two bundles carry the KMS client. */
export const SECRETS_FACTORIES: Factories<'secretSealer' | 'secretOpener'> = {
  secretSealer: (v, s) =>
    secretsCipher(
      'HOOKLINE_SECRETS_SEAL_KEY_ID',
      v,
      s,
      (kms, keyId) =>
        new KmsSecretSealer(kms, keyId, new DynamoDbKeyringStore(s.db, v.KEYRING_TABLE), {
          ttlMs: parsePositiveInt('HOOKLINE_SECRETS_CACHE_SECONDS', v.HOOKLINE_SECRETS_CACHE_SECONDS) * 1000,
        }),
    ),
  secretOpener: (v, s) =>
    secretsCipher(
      'HOOKLINE_SECRETS_OPEN_KEY_ID',
      v,
      s,
      (kms, keyId) =>
        new KmsSecretOpener(kms, keyId, {
          ttlMs: parsePositiveInt('HOOKLINE_SECRETS_CACHE_SECONDS', v.HOOKLINE_SECRETS_CACHE_SECONDS) * 1000,
        }),
    ),
};

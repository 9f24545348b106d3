import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shortest admin key the local runtime accepts: it opens every subscription, delivery and replay. */
export const MIN_ADMIN_KEY_LENGTH = 24;

/** An admin key that is refused at start-up; the message says where it came from and how to fix it. */
export class AdminKeyError extends Error {
  override name = 'AdminKeyError';
}

/** Where a key came from: an environment variable (or option), or a file. */
export type AdminKeyOrigin = { readonly variable: string } | { readonly file: string };

/** `key` when it is long enough to be a secret; otherwise an AdminKeyError naming where it came from. */
export function checkAdminKey(key: string, origin: AdminKeyOrigin): string {
  if (key.length >= MIN_ADMIN_KEY_LENGTH) return key;
  const [where, fix] =
    'variable' in origin
      ? [
          origin.variable,
          `unset it to use the key generated in the data folder, or set one of at least ${MIN_ADMIN_KEY_LENGTH} characters`,
        ]
      : [
          origin.file,
          `delete the file to have a new key generated, or write one of at least ${MIN_ADMIN_KEY_LENGTH} characters into it`,
        ];
  throw new AdminKeyError(
    `the admin key in ${where} is ${key.length} characters long; it must be at least ${MIN_ADMIN_KEY_LENGTH}: ${fix}`,
  );
}

/** Whether `npm start` takes its admin key from the environment (HOOKLINE_ADMIN_KEY) or from the data folder's file. */
export function adminKeyFromEnvironment(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.HOOKLINE_ADMIN_KEY);
}

/**
 * Checks the admin key `npm start` is about to use (HOOKLINE_ADMIN_KEY, else `<dataDir>/admin-key`
 * if it exists; a missing file is generated later with a long random key), before anything starts.
 */
export function checkConfiguredAdminKey(dataDir: string, env: NodeJS.ProcessEnv): void {
  if (adminKeyFromEnvironment(env)) {
    checkAdminKey(env.HOOKLINE_ADMIN_KEY!, { variable: 'HOOKLINE_ADMIN_KEY' });
    return;
  }
  const file = join(dataDir, 'admin-key');
  if (existsSync(file)) checkAdminKey(readFileSync(file, 'utf8').trim(), { file });
}

import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { externalEndpoints } from '#local/emulators.ts';

/**
 * The HOOKLINE_RESOURCE_PREFIX a test runtime on `dataDir` uses. With an endpoint given from
 * outside (AWS_ENDPOINT_URL_*, e.g. the DynamoDB Local pass), test files running in parallel
 * share that server, so each runtime gets names of its own; derived from the data folder, so a
 * runtime restarted on the same folder (the crash test) finds its tables again. With only the
 * embedded emulators, each runtime has its own server anyway: no prefix, today's names.
 */
export function testResourcePrefix(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (Object.keys(externalEndpoints(env)).length === 0) return '';
  return `t${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

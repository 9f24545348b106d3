import { ENDPOINT_VARIABLES, type Service } from './emulators.ts';
import type { Runtime } from './runtime.ts';

export interface BannerOptions {
  /** The key came from HOOKLINE_ADMIN_KEY: its owner has it already, and terminals and logs keep what is printed. */
  readonly adminKeyFromEnvironment: boolean;
  readonly allowPrivate: boolean;
}

type BannerRuntime = Pick<Runtime, 'url' | 'adminKey' | 'dataDir' | 'endpoints' | 'embedded' | 'resourcePrefix'>;

/** What `npm start` prints once the runtime is up. */
export function banner(runtime: BannerRuntime, options: BannerOptions): string {
  /** Embedded emulator, or the variable that pointed the service elsewhere. */
  const via = (service: Service, emulator: string) => (runtime.embedded[service] ? `(${emulator}, embedded)` : `(${ENDPOINT_VARIABLES[service]})`);
  const adminKey = options.adminKeyFromEnvironment ? 'from HOOKLINE_ADMIN_KEY (not shown)' : `${runtime.adminKey}   (kept in ${runtime.dataDir}/admin-key)`;
  return `Hookline is running locally.
  API        ${runtime.url}   (try: curl ${runtime.url}/health)
  Admin key  ${adminKey}
  Data       ${runtime.dataDir}
  DynamoDB   ${runtime.endpoints.dynamodb} ${via('dynamodb', 'dynalite')}
  SQS        ${runtime.endpoints.sqs} ${via('sqs', 'fauxqs')}
  S3         ${runtime.endpoints.s3} ${via('s3', 'fauxqs')}
  Names      ${runtime.resourcePrefix ? `${runtime.resourcePrefix}-hookline-… (HOOKLINE_RESOURCE_PREFIX)` : 'hookline-… (no HOOKLINE_RESOURCE_PREFIX)'}
  Lambda     ${runtime.endpoints.lambda} (Invoke API for the replay and archiver functions, token in runtime.json; try: npx hookline --help)
  Private targets ${options.allowPrivate ? 'allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS=1)' : 'refused'}
Press Ctrl+C to stop.`;
}

import { ENDPOINT_VARIABLES, type Service } from './emulators.ts';
import type { Runtime } from './runtime.ts';
import { scriptVariables, SCRIPT_VARIABLES } from './script-variables.ts';
import { exportLine } from './shell-export.ts';

export interface BannerOptions {
  /** The key came from HOOKLINE_ADMIN_KEY: its owner has it already, and terminals and logs keep what is printed. */
  readonly adminKeyFromEnvironment: boolean;
  readonly allowPrivate: boolean;
}

type BannerRuntime = Pick<Runtime, 'url' | 'adminKey' | 'dataDir' | 'endpoints' | 'embedded' | 'resourcePrefix'> & {
  /** The web dashboard (operator console and customer portal), when the runtime serves it. */
  readonly consoleUrl?: string;
  readonly queues: { readonly urls: Pick<Runtime['queues']['urls'], 'ingest'> };
  /**
   * A dashboard of the local run. There is none yet, so the runtime gives none and nothing is
   * printed; once one exists, giving its URL here adds the Dashboard line and its export.
   */
  readonly dashboardUrl?: string;
};

/** What `npm start` prints once the runtime is up: where everything is, then `export` lines ready to paste. */
export function banner(runtime: BannerRuntime, options: BannerOptions): string {
  /** Embedded emulator, or the variable that pointed the service elsewhere. */
  const via = (service: Service, emulator: string) =>
    runtime.embedded[service] ? `(${emulator}, embedded)` : `(${ENDPOINT_VARIABLES[service]})`;
  const adminKey = options.adminKeyFromEnvironment
    ? 'from HOOKLINE_ADMIN_KEY (not shown)'
    : `${runtime.adminKey}   (kept in ${runtime.dataDir}/admin-key)`;
  const ingest = runtime.queues.urls.ingest;
  const api = exportLine(
    scriptVariables({
      apiUrl: runtime.url,
      ...(options.adminKeyFromEnvironment ? {} : { adminKey: runtime.adminKey }),
    }),
  );
  const exports = [
    // A key from the environment is not printed: the line says where to take it from instead.
    options.adminKeyFromEnvironment
      ? `${api}   # and ${SCRIPT_VARIABLES.adminKey}: set it from your own variable (the key came from the environment, so it is not shown)`
      : api,
    exportLine(scriptVariables({ ingestQueueUrl: ingest, sqsEndpoint: runtime.endpoints.sqs })),
    ...(runtime.dashboardUrl ? [exportLine(scriptVariables({ dashboardUrl: runtime.dashboardUrl }))] : []),
    ...(runtime.consoleUrl ? [exportLine(scriptVariables({ consoleUrl: runtime.consoleUrl }))] : []),
  ];
  return `Hookline is running locally.
  API        ${runtime.url}   (try: curl ${runtime.url}/health)
  Admin key  ${adminKey}
  Ingest     ${ingest}   (SQS: producers send {"type", "payload"} here; try: npx hookline publish --sqs --type demo.ping --data '{}')
${runtime.consoleUrl ? `  Console    ${runtime.consoleUrl}   (web dashboard: paste the admin key; customer links: npx hookline portal-link --tenant <id>)\n` : ''}${runtime.dashboardUrl ? `  Dashboard  ${runtime.dashboardUrl}\n` : ''}  Data       ${runtime.dataDir}
  DynamoDB   ${runtime.endpoints.dynamodb} ${via('dynamodb', 'dynalite')}
  SQS        ${runtime.endpoints.sqs} ${via('sqs', 'fauxqs')}
  S3         ${runtime.endpoints.s3} ${via('s3', 'fauxqs')}
  Names      ${runtime.resourcePrefix ? `${runtime.resourcePrefix}-hookline-… (HOOKLINE_RESOURCE_PREFIX)` : 'hookline-… (no HOOKLINE_RESOURCE_PREFIX)'}
  Lambda     ${runtime.endpoints.lambda} (Invoke API for the replay and archiver functions, token in runtime.json; try: npx hookline --help)
  Private targets ${options.allowPrivate ? 'allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS=1)' : 'refused'}
For scripts and curl, paste into another shell (\`npx hookline env\` prints them again):
${exports.map((l) => `  ${l}`).join('\n')}
Press Ctrl+C to stop.`;
}

/**
 * The environment variables a producer script or a curl line uses to reach Hookline, as the
 * banner and `npx hookline env` export them. The CLI reads the same names (cli/target.ts), so
 * after pasting them every tool agrees on where Hookline is.
 */
export const SCRIPT_VARIABLES = {
  apiUrl: 'HOOKLINE_API_URL',
  adminKey: 'HOOKLINE_ADMIN_KEY',
  ingestQueueUrl: 'HOOKLINE_INGEST_QUEUE_URL',
  ingestRedriveQueueUrl: 'HOOKLINE_INGEST_REDRIVE_QUEUE_URL',
  /**
   * Not AWS_ENDPOINT_URL_SQS: exported in a shell, that one would also point a later `npm start`
   * there (an "external" SQS that is gone once this runtime stops) and every other SDK tool too.
   */
  sqsEndpoint: 'HOOKLINE_SQS_ENDPOINT',
  dashboardName: 'HOOKLINE_DASHBOARD_NAME',
  dashboardUrl: 'HOOKLINE_DASHBOARD_URL',
  /** The web dashboard (operator console, customer portal): `<API>/dashboard`. Not the CloudWatch dashboard above. */
  consoleUrl: 'HOOKLINE_CONSOLE_URL',
} as const;

export type ScriptValues = Partial<Record<keyof typeof SCRIPT_VARIABLES, string>>;

/** [variable, value] for every value given, in SCRIPT_VARIABLES order. */
export function scriptVariables(values: ScriptValues): [string, string][] {
  return (Object.keys(SCRIPT_VARIABLES) as (keyof typeof SCRIPT_VARIABLES)[])
    .filter((k) => values[k] !== undefined)
    .map((k) => [SCRIPT_VARIABLES[k], values[k]!]);
}

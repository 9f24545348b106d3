/**
 * `runtime.json`: where a running local runtime listens, written into its data folder at start
 * (owner-only, 0600: it carries the Invoke token) and removed on a clean stop; the CLI
 * (cli/target.ts) reads it. Version 2 gives SQS and S3 an endpoint each (either may be
 * external); version 1 (no `version`) had one shared `aws`.
 */
export const RUNTIME_FILE_VERSION = 2;

/** The header the local Invoke API (local/lambda-api.ts) reads its per-run token from. */
export const INVOKE_TOKEN_HEADER = 'x-hookline-invoke-token';

export interface RuntimeFile {
  readonly version: typeof RUNTIME_FILE_VERSION;
  readonly api: string;
  readonly lambda: string;
  /**
   * The local Invoke API's per-run token, sent in INVOKE_TOKEN_HEADER. Absent in files written
   * by runtimes from before it was required (they do not check one).
   */
  readonly lambdaToken?: string;
  readonly dynamodb: string;
  readonly sqs: string;
  readonly s3: string;
  /**
   * Which of dynamodb, sqs, s3 the embedded emulators serve (dummy credentials do), as opposed
   * to an endpoint given from outside (the SDK's credential chain). Absent in older files.
   */
  readonly embedded?: Readonly<Record<'dynamodb' | 'sqs' | 's3', boolean>>;
  /** The ingest queue producers send events to, usable as it is (`npx hookline publish --sqs`, `env`). Absent in older files. */
  readonly ingestQueueUrl?: string;
  /** Where ingest messages that fail validation end up. Absent in older files. */
  readonly ingestRedriveQueueUrl?: string;
  /**
   * A dashboard of the local run, once there is one (there is none yet, so no runtime writes
   * this): the banner and `npx hookline env` show it when present.
   */
  readonly dashboardUrl?: string;
  readonly resourcePrefix: string;
  readonly pid: number;
}

/** Parses either version into the current shape; a newer or unreadable file is refused, saying why. */
export function parseRuntimeFile(text: string, file: string): RuntimeFile {
  // biome-ignore lint/suspicious/noExplicitAny: a file of either version, read field by field below.
  let raw: any;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not valid JSON (${(error as Error).message}); stop the runtime, delete the file and start it again`,
    );
  }
  if (!raw || typeof raw !== 'object' || typeof raw.api !== 'string')
    throw new Error(`${file} does not describe a runtime (no "api")`);
  const version = raw.version ?? 1;
  if (version === 1) return { ...raw, version: RUNTIME_FILE_VERSION, sqs: raw.aws, s3: raw.aws, resourcePrefix: '' };
  if (version !== RUNTIME_FILE_VERSION)
    throw new Error(
      `${file} has version ${JSON.stringify(version)}, which this code does not know (it reads 1 and 2): update it`,
    );
  return raw as RuntimeFile;
}

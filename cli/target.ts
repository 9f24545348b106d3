import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { INVOKE_TOKEN_HEADER, parseRuntimeFile } from '#local/runtime-file.ts';
import { consoleUrlOf } from '#config/topology.ts';
import { CliError, EXIT, UnreachableError } from './errors.ts';

/** The options that say where Hookline runs; every one has a flag, most an environment variable. */
export interface TargetOptions {
  readonly aws?: boolean;
  readonly dataDir?: string;
  readonly apiUrl?: string;
  readonly key?: string;
  readonly lambdaEndpoint?: string;
  readonly stack?: string;
  readonly region?: string;
  readonly replayFunction?: string;
  readonly archiverFunction?: string;
  /** The ingest queue `publish --sqs` sends to. */
  readonly queueUrl?: string;
  /** The SQS endpoint for it (locally; AWS itself otherwise). */
  readonly sqsEndpoint?: string;
}

export interface ApiTarget {
  readonly url: string;
  readonly key: string;
}

export interface LambdaTarget {
  readonly client: LambdaClient;
  readonly replayFunction: string;
  readonly archiverFunction: string;
}

export interface QueueTarget {
  readonly client: SQSClient;
  readonly queueUrl: string;
}

/**
 * Where producers and scripts reach Hookline, as `hookline env` prints it: what the runtime
 * (runtime.json) or the stack (its outputs) says, with flags over it.
 */
export interface Endpoints {
  readonly apiUrl?: string;
  readonly ingestQueueUrl?: string;
  readonly ingestRedriveQueueUrl?: string;
  readonly sqsEndpoint?: string;
  readonly dashboardName?: string;
  readonly dashboardUrl?: string;
  /** The web dashboard (operator console and customer portal). */
  readonly consoleUrl?: string;
}

/** Where commands go: the HTTP API, the replay/archiver functions and the ingest queue, resolved only when first needed. */
export interface Target {
  readonly mode: 'local' | 'aws';
  api(): Promise<ApiTarget>;
  lambda(): Promise<LambdaTarget>;
  queue(): Promise<QueueTarget>;
  endpoints(): Promise<Endpoints>;
}

export interface AwsClients {
  readonly cloudFormation?: CloudFormationClient;
  readonly secretsManager?: SecretsManagerClient;
  readonly sqs?: SQSClient;
}

/**
 * The region in an AWS URL (`sqs.eu-west-1.amazonaws.com`, `abc.execute-api.eu-west-1.amazonaws.com`,
 * or a Function URL, the stack's default API entry: `abc.lambda-url.eu-west-1.on.aws`), if any.
 */
export function regionOfUrl(url: string | undefined): string | undefined {
  return url ? /\.([a-z]{2}(?:-[a-z]+)+-\d)\.(?:amazonaws\.com|on\.aws)\b/.exec(url)?.[1] : undefined;
}

/** The CloudWatch console page of a dashboard. */
export function dashboardUrl(region: string, name: string): string {
  return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${encodeURIComponent(name)}`;
}

const LOOPBACK_URL = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/i;

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Sends the local Invoke API's per-run token (local/lambda-api.ts) with every call `client`
 * makes; without a token the client is left as it is.
 */
function withInvokeToken(client: LambdaClient, token: string | undefined): LambdaClient {
  if (!token) return client;
  client.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers[INVOKE_TOKEN_HEADER] = token;
      return next(args);
    },
    { step: 'build', name: 'hooklineInvokeToken' },
  );
  return client;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}

/**
 * The local runtime (default): `runtime.json` and `admin-key` in the data folder say where the
 * API and the local Lambda Invoke API listen, and the Invoke API's per-run token. `npm start`
 * writes both; a runtime.json of an older runtime (version 1) is read as well, one of an
 * unknown version is refused. The token goes only to the endpoint runtime.json names; another
 * --lambda-endpoint gets $HOOKLINE_LAMBDA_TOKEN, if set.
 */
export function localTarget(options: TargetOptions, env: NodeJS.ProcessEnv = process.env): Target {
  const dataDir = resolve(options.dataDir ?? env.HOOKLINE_DATA_DIR ?? '.data');
  const runtime = once(async () => {
    const file = join(dataDir, 'runtime.json');
    if (!existsSync(file)) return undefined;
    try {
      return parseRuntimeFile(readFileSync(file, 'utf8'), file);
    } catch (error) {
      throw new UnreachableError((error as Error).message, { cause: error });
    }
  });
  const notRunning = (what: string) =>
    new UnreachableError(
      `no local runtime found in ${dataDir} (runtime.json is missing): start it with \`npm start\`, pass --data-dir, or give ${what}`,
    );
  return {
    mode: 'local',
    api: once(async () => {
      const url = options.apiUrl ?? env.HOOKLINE_API_URL ?? (await runtime())?.api;
      if (!url) throw notRunning('--api-url');
      const keyFile = join(dataDir, 'admin-key');
      const key =
        options.key ??
        env.HOOKLINE_ADMIN_KEY ??
        (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined);
      if (!key)
        throw new CliError(
          `no admin key: pass --key, set HOOKLINE_ADMIN_KEY, or run against a data folder with an admin-key file (${keyFile})`,
          EXIT.usage,
        );
      return { url: url.replace(/\/+$/, ''), key };
    }),
    lambda: once(async () => {
      const file = await runtime();
      const endpoint = options.lambdaEndpoint ?? env.HOOKLINE_LAMBDA_ENDPOINT ?? file?.lambda;
      if (!endpoint) throw notRunning('--lambda-endpoint');
      const token = env.HOOKLINE_LAMBDA_TOKEN ?? (endpoint === file?.lambda ? file.lambdaToken : undefined);
      return {
        client: withInvokeToken(
          new LambdaClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 }),
          token,
        ),
        replayFunction: options.replayFunction ?? 'replay',
        archiverFunction: options.archiverFunction ?? 'archiver',
      };
    }),
    queue: once(async () => {
      const file = await runtime();
      const queueUrl = options.queueUrl ?? env.HOOKLINE_INGEST_QUEUE_URL ?? file?.ingestQueueUrl;
      if (!queueUrl && file)
        throw new CliError(
          `${join(dataDir, 'runtime.json')} names no ingest queue (its runtime predates that): restart \`npm start\`, or pass --queue-url`,
          EXIT.usage,
        );
      const endpoint = options.sqsEndpoint ?? env.HOOKLINE_SQS_ENDPOINT ?? file?.sqs;
      if (!queueUrl || !endpoint) throw notRunning('--queue-url and --sqs-endpoint');
      // Dummy credentials for the embedded fauxqs only; another endpoint gets the SDK's chain.
      const embedded = endpoint === file?.sqs && file.embedded?.sqs !== false;
      const config = embedded
        ? { endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 }
        : { endpoint, region: options.region ?? env.AWS_REGION ?? 'us-east-1', maxAttempts: 1 };
      return { client: new SQSClient(config), queueUrl };
    }),
    // What the runtime says, not the HOOKLINE_* variables: `eval "$(hookline env)"` refreshes stale ones.
    endpoints: once(async () => {
      const file = await runtime();
      if (!file) throw notRunning('the endpoints as flags');
      return {
        apiUrl: options.apiUrl ?? file.api,
        ...(file.ingestQueueUrl || options.queueUrl ? { ingestQueueUrl: options.queueUrl ?? file.ingestQueueUrl } : {}),
        ...(file.ingestRedriveQueueUrl ? { ingestRedriveQueueUrl: file.ingestRedriveQueueUrl } : {}),
        sqsEndpoint: options.sqsEndpoint ?? file.sqs,
        ...(file.dashboardUrl ? { dashboardUrl: file.dashboardUrl } : {}),
        // The runtime serves the web dashboard beside its API, as the banner says.
        consoleUrl: consoleUrlOf(options.apiUrl ?? file.api),
      };
    }),
  };
}

/**
 * A deployed stack: function names, API URL and admin-key secret from the stack's outputs
 * (`--stack`, default Hookline), each overridable by a flag; the key itself from Secrets Manager.
 * Credentials and region come from the usual AWS SDK chain (profile, environment, SSO).
 */
export function awsTarget(
  options: TargetOptions,
  clients: AwsClients = {},
  env: NodeJS.ProcessEnv = process.env,
): Target {
  const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const config = region ? { region } : {};
  const stackName = options.stack ?? env.HOOKLINE_STACK ?? 'Hookline';
  const outputs = once(async () => {
    const cfn = clients.cloudFormation ?? new CloudFormationClient(config);
    try {
      const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
      const stack = out.Stacks?.[0];
      if (!stack) throw new CliError(`stack ${stackName} not found`, EXIT.notFound);
      return Object.fromEntries((stack.Outputs ?? []).map((o) => [o.OutputKey!, o.OutputValue!]));
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new UnreachableError(
        `cannot read the outputs of stack ${stackName}: ${(error as Error).message} (pass --stack, --region, or the names and URL as flags)`,
        { cause: error },
      );
    }
  });
  const output = async (name: string, flag: string): Promise<string> => {
    const value = (await outputs())[name];
    if (!value) throw new CliError(`stack ${stackName} has no ${name} output: pass ${flag}`, EXIT.usage);
    return value;
  };
  /**
   * A URL variable for --aws. One that points at this machine was most likely exported from
   * `npm start`'s banner into this shell: refused, so --aws never quietly talks to the local
   * runtime (and never sends it a production key).
   */
  const awsVariable = (name: string, flag: string): string | undefined => {
    const value = env[name];
    if (value && LOOPBACK_URL.test(value)) {
      throw new CliError(
        `--aws, but ${name}=${value} points at this machine (exported from npm start's banner?): unset ${name} (and HOOKLINE_ADMIN_KEY with it) in this shell, or pass ${flag}`,
        EXIT.usage,
      );
    }
    return value || undefined;
  };
  return {
    mode: 'aws',
    api: once(async () => {
      const url =
        options.apiUrl ?? awsVariable('HOOKLINE_API_URL', '--api-url') ?? (await output('ApiUrl', '--api-url'));
      let key = options.key ?? env.HOOKLINE_ADMIN_KEY;
      if (!key) {
        const secretId = await output('AdminKeySecretArn', '--key');
        const sm = clients.secretsManager ?? new SecretsManagerClient(config);
        key = (await sm.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
        if (!key) throw new CliError(`secret ${secretId} holds no key`, EXIT.failure);
      }
      return { url: url.replace(/\/+$/, ''), key };
    }),
    lambda: once(async () => ({
      // A token is for a local Invoke API given as --lambda-endpoint, never for AWS itself.
      client: options.lambdaEndpoint
        ? withInvokeToken(new LambdaClient({ ...config, endpoint: options.lambdaEndpoint }), env.HOOKLINE_LAMBDA_TOKEN)
        : new LambdaClient(config),
      replayFunction:
        options.replayFunction ??
        env.HOOKLINE_REPLAY_FUNCTION ??
        (await output('ReplayFunctionName', '--replay-function')),
      archiverFunction:
        options.archiverFunction ??
        env.HOOKLINE_ARCHIVER_FUNCTION ??
        (await output('ArchiverFunctionName', '--archiver-function')),
    })),
    queue: once(async () => {
      const queueUrl =
        options.queueUrl ??
        awsVariable('HOOKLINE_INGEST_QUEUE_URL', '--queue-url') ??
        (await output('IngestQueueUrl', '--queue-url'));
      const queueRegion = region ?? regionOfUrl(queueUrl);
      const client =
        clients.sqs ??
        new SQSClient({
          ...(queueRegion ? { region: queueRegion } : {}),
          ...(options.sqsEndpoint ? { endpoint: options.sqsEndpoint } : {}),
        });
      return { client, queueUrl };
    }),
    // The stack's outputs (flags over them); an output the stack does not have is left out.
    endpoints: once(async () => {
      const out = await outputs();
      const apiUrl = options.apiUrl ?? out.ApiUrl;
      const ingestQueueUrl = options.queueUrl ?? out.IngestQueueUrl;
      const dashboardName = out.DashboardName;
      const where = region ?? regionOfUrl(ingestQueueUrl) ?? regionOfUrl(apiUrl);
      return {
        ...(apiUrl ? { apiUrl: apiUrl.replace(/\/+$/, '') } : {}),
        ...(ingestQueueUrl ? { ingestQueueUrl } : {}),
        ...(options.sqsEndpoint ? { sqsEndpoint: options.sqsEndpoint } : {}),
        ...(dashboardName
          ? { dashboardName, ...(where ? { dashboardUrl: dashboardUrl(where, dashboardName) } : {}) }
          : {}),
        ...(out.ConsoleUrl ? { consoleUrl: out.ConsoleUrl } : {}),
      };
    }),
  };
}

export function resolveTarget(options: TargetOptions, clients?: AwsClients): Target {
  return options.aws ? awsTarget(options, clients) : localTarget(options);
}

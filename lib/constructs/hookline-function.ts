import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { LAMBDA_EXTERNAL_MODULES } from '../../lambdas/config/bundling.ts';
import {
  FUNCTIONS,
  OBSERVABILITY_DEFAULTS,
  type FunctionKey,
  type LogLevelName,
  type PlatformLogLevelName,
} from '../../lambdas/config/topology.ts';
import { markTopology } from '../topology-metadata.ts';
import { TABLE_GRANTS } from './access.ts';
import { reservedConcurrencyOf } from './concurrency.ts';
import { functionEnvironment, type EnvironmentValues } from './environment.ts';
import type { FunctionConstructProps } from './function-options.ts';
import type { HooklineQueue } from './queues.ts';
import type { HooklineStorage } from './storage.ts';

/** Root of the Hookline package: handler entries, package-lock.json and tsconfig.json live here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Bundled CJS dependencies may call `require` for Node built-ins; an ESM bundle has no
 * `require`, so give it one. The alias keeps the banner's import from clashing with bundle symbols.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __hooklineCreateRequire } from 'node:module'; const require = __hooklineCreateRequire(import.meta.url);";

/** Retention of every Hookline log group (functions, API access logs) unless props say otherwise. */
export const DEFAULT_LOG_RETENTION: logs.RetentionDays = OBSERVABILITY_DEFAULTS.logRetentionDays;

export interface HooklineFunctionProps {
  /** The FUNCTIONS entry to build: entry file, timeout, memory, description and environment names come from it. */
  readonly functionKey: FunctionKey;
  /** Values for the environment names the entry lists; names missing here fall back to ENV_DEFAULTS. */
  readonly environmentValues: EnvironmentValues;
  /** How long the function's log group keeps logs. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to the log group when the stack deletes it. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** X-Ray active tracing. @default OBSERVABILITY_DEFAULTS.tracing (off) */
  readonly tracing?: boolean;
  /** Powertools' and Lambda's application log level. @default OBSERVABILITY_DEFAULTS.logLevel (WARN) */
  readonly logLevel?: LogLevelName;
  /** Lambda's platform records (START, END, REPORT at INFO). @default OBSERVABILITY_DEFAULTS.platformLogLevel (WARN) */
  readonly platformLogLevel?: PlatformLogLevelName;
  /**
   * Lambda reserved concurrency: executions set aside for this function and its cap.
   * @default RESERVED_CONCURRENCY_DEFAULTS (none: see there why)
   */
  readonly reservedConcurrency?: number;
  /** Where the handler sources and package-lock.json are. @default PROJECT_ROOT */
  readonly projectRoot?: string;
  /** Grants the function its TABLE_GRANTS entry on these tables. @default no table access */
  readonly storage?: HooklineStorage;
  /** Work queues the function may send messages to (SendMessage only). @default none */
  readonly sendsTo?: readonly HooklineQueue[];
  /**
   * Why the function needs no asynchronous-invocation DLQ or failure destination: acknowledged
   * for cdk-nag (see acknowledgeNoAsyncFailureDestination). @default nothing acknowledged
   */
  readonly noAsyncFailureDestination?: string;
  /**
   * Shell commands run after esbuild, given the bundle's output folder: what else the bundle
   * carries (the api adds the web dashboard's files). @default none
   */
  readonly afterBundling?: (outputDir: string) => string[];
  /** Runs the function in these VPC subnets (the sender with static egress IPs). @default no VPC */
  readonly placement?: {
    readonly vpc: ec2.IVpc;
    readonly vpcSubnets: ec2.SubnetSelection;
    readonly securityGroups: ec2.ISecurityGroup[];
  };
}

/** A FunctionConstructProps as the props of its one function: the shared options, environment and tables. */
export function functionPropsFrom(key: FunctionKey, props: FunctionConstructProps): HooklineFunctionProps {
  return {
    ...props.functionOptions,
    functionKey: key,
    environmentValues: props.environmentValues,
    storage: props.storage,
    reservedConcurrency: props.reservedConcurrency?.[key],
  };
}

/**
 * One Hookline Lambda function, built entirely from its `FUNCTIONS` entry: Node.js 22 on
 * arm64, bundled locally by esbuild (never Docker) into minified ESM with source maps, its
 * own log group with a retention, and its own role that may write only to that log group.
 * Given `storage` and `sendsTo`, it also gets its TABLE_GRANTS and SendMessage on those
 * queues; every other permission comes from `grant…` calls by the construct that owns it.
 */
export class HooklineFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly functionKey: FunctionKey;
  /** The function's reserved concurrency, if it has one. */
  readonly reservedConcurrency?: number;

  constructor(scope: Construct, id: string, props: HooklineFunctionProps) {
    super(scope, id);
    const def = FUNCTIONS[props.functionKey];
    const root = props.projectRoot ?? PROJECT_ROOT;
    this.functionKey = props.functionKey;
    this.reservedConcurrency = reservedConcurrencyOf(props.functionKey, props.reservedConcurrency);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // An explicit role instead of AWSLambdaBasicExecutionRole: that managed policy may
    // create and write any log group in the account; this one writes to its own group only.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Hookline ${props.functionKey} function`,
    });
    this.logGroup.grantWrite(this.role);

    const entry = path.join(root, def.entry);
    const logLevel = props.logLevel ?? OBSERVABILITY_DEFAULTS.logLevel;
    const tracing = props.tracing ?? OBSERVABILITY_DEFAULTS.tracing;
    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.seconds(def.timeoutSeconds),
      memorySize: def.memorySize,
      description: def.description,
      reservedConcurrentExecutions: this.reservedConcurrency,
      environment: {
        ...functionEnvironment(props.functionKey, props.environmentValues),
        POWERTOOLS_LOG_LEVEL: logLevel,
      },
      // JSON records let Lambda filter by level: its own START/END/REPORT lines go below WARN.
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel[logLevel],
      systemLogLevelV2: lambda.SystemLogLevel[props.platformLogLevel ?? OBSERVABILITY_DEFAULTS.platformLogLevel],
      role: this.role,
      logGroup: this.logGroup,
      ...(props.placement ?? {}),
      tracing: tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Bundle the AWS SDK too: the version the tests ran against is the one deployed,
        // and tree-shaking keeps cold starts shorter than loading the runtime's full SDK.
        // Only credential providers Lambda never reaches are left out (see bundling.ts).
        externalModules: [...LAMBDA_EXTERNAL_MODULES],
        banner: ESM_REQUIRE_BANNER,
        logLevel: LogLevel.WARNING,
        tsconfig: existsSync(path.join(root, 'tsconfig.json')) ? path.join(root, 'tsconfig.json') : undefined,
        ...(props.afterBundling
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => props.afterBundling!(outputDir),
              },
            }
          : {}),
      },
    });
    markTopology(this.function, `function/${props.functionKey}`);
    props.storage?.grant(this.function, TABLE_GRANTS[props.functionKey]);
    for (const queue of props.sendsTo ?? []) queue.queue.grantSendMessages(this.function);
    if (props.noAsyncFailureDestination !== undefined)
      this.acknowledgeNoAsyncFailureDestination(props.noAsyncFailureDestination);
    if (props.placement) {
      // Lambda attaches the VPC-access managed policy itself: it lets the function create and
      // delete its own network interfaces, which ec2 does not scope to resources.
      acknowledgeNag(this.role, [
        {
          id: 'AwsSolutions-IAM4',
          reason:
            'AWSLambdaVPCAccessExecutionRole: the ENI permissions a function in a VPC needs; EC2 offers no narrower resource scope for them.',
          findings: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole'],
        },
      ]);
    }

    acknowledgeNag(this.function, [
      {
        id: 'AwsSolutions-L1',
        reason:
          'Pinned to nodejs22.x on purpose: the package declares engines.node >=22, the local runtime and the tests run Node 22, and the runtime moves only together with them.',
      },
      {
        id: 'Serverless-LambdaLatestVersion',
        reason:
          'Pinned to nodejs22.x to match engines.node, the local runtime and the tests; upgraded together with them.',
      },
    ]);
    if (!tracing)
      acknowledgeNag(this.function, [
        {
          id: 'Serverless-LambdaTracing',
          reason:
            'X-Ray is off by default (OBSERVABILITY_DEFAULTS.tracing): at $5 per million traces it would cost more than the deliveries it watches over HTTP; the metrics, alarms and logs stay. The tracing prop turns it on.',
        },
      ]);
    // X-Ray has no resource-level permissions: PutTraceSegments/PutTelemetryRecords only accept "*".
    if (tracing)
      acknowledgeNag(this.role, [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions, so AWS requires Resource "*".',
          findings: ['Resource::*'],
        },
      ]);
  }

  /**
   * Acknowledges that this function has no asynchronous-invocation DLQ or failure
   * destination, with the reason why nothing is lost without one.
   */
  acknowledgeNoAsyncFailureDestination(reason: string): void {
    acknowledgeNag(this.function, [
      { id: 'Serverless-LambdaDLQ', reason },
      { id: 'Serverless-LambdaAsyncFailureDestination', reason },
    ]);
  }
}

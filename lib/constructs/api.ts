import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError } from '../errors.ts';
import type { ApiDashboardMetrics } from './dashboard.ts';
import {
  API_ACCESS_LOG_FORMATS,
  type ApiAccessLogFormat,
  DASHBOARD_PATH,
  OBSERVABILITY_DEFAULTS,
} from '../../lambdas/config/topology.ts';
import type { FunctionConstructProps, SharedFunctionOptions } from './function-options.ts';
import { DEFAULT_LOG_RETENTION, functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import { buildHttpApi, HTTP_API_STAGE } from './http-api.ts';
import type { HooklineQueue } from './queues.ts';
import { buildRestApi } from './rest-api.ts';
import { builtDashboardFolder } from '../../dashboard/build.ts';

/** `'…'` for bash: the folder names come from mkdtemp and CDK, but a quote in one must not break the copy. */
const shellQuoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * API Gateway caches each authorizer decision per key this long: a revoked or expired tenant key
 * stops working within it (the authorizer itself looks tenant keys up on every call). Short
 * enough for revocation, long enough that the authorizer runs about twice a minute per busy key.
 */
export const DEFAULT_AUTHORIZER_CACHE_TTL = Duration.seconds(30);
/** The longest cache allowed: Hookline promises that a revoked key stops within a minute. */
export const MAX_AUTHORIZER_CACHE_TTL = Duration.seconds(60);

/**
 * How API callers authenticate.
 * - `bearer`: `Authorization: Bearer <key>`, the same scheme as the local gateway, checked
 *   by the `authorizer` function against a key generated in Secrets Manager.
 * - `iam`: SigV4-signed requests; grant callers with `grantInvoke`. No key, no authorizer.
 */
export type ApiAuth = 'bearer' | 'iam';

/**
 * Which API Gateway product serves the API.
 * - `http`: an HTTP API (API Gateway v2, $1.00 per million requests), served at the root of
 *   its URL. API Gateway's own errors answer `{"message": ...}` (a refused key is a 403).
 * - `rest`: a REST API ($3.50 per million), for deployments that need a WAF web ACL
 *   (`webAclArn`), X-Ray traces of the gateway, execution logs or Hookline-shaped gateway errors.
 */
export type ApiType = 'http' | 'rest';
export const API_TYPES: readonly ApiType[] = ['http', 'rest'];

export interface ApiThrottling {
  /** Steady-state requests per second across the stage. */
  readonly rateLimit: number;
  /** Burst bucket size. */
  readonly burstLimit: number;
}

/** Stage throttling when none is given; the `apiRateLimit`/`apiBurstLimit` context keys fill in from it too. */
export const DEFAULT_API_THROTTLING: ApiThrottling = Object.freeze({ rateLimit: 100, burstLimit: 200 });

export interface HooklineApiProps extends FunctionConstructProps {
  readonly deliveryQueue: HooklineQueue;
  /** @default 'http' */
  readonly apiType?: ApiType;
  /** @default 'bearer' */
  readonly auth?: ApiAuth;
  /** @default DEFAULT_API_THROTTLING ({ rateLimit: 100, burstLimit: 200 }) */
  readonly throttling?: ApiThrottling;
  /**
   * How long API Gateway caches an authorizer decision per bearer key (for either API type). On
   * REST the authorizer must then allow the whole API (not just the method it was asked about);
   * an HTTP API's simple response already does. It is how long a revoked or expired tenant key
   * may still get in, so at most MAX_AUTHORIZER_CACHE_TTL (60 s).
   * @default DEFAULT_AUTHORIZER_CACHE_TTL (30 seconds)
   */
  readonly authorizerCacheTtl?: Duration;
  /** REST only: the HTTP API serves its `$default` stage at the root of its URL. @default 'prod' */
  readonly stageName?: string;
  /** A regional WAFv2 web ACL to associate with the stage. REST only: WAF cannot attach to an HTTP API. */
  readonly webAclArn?: string;
  /**
   * Create the account-level role API Gateway needs to write access and execution logs
   * (AWS::ApiGateway::Account, one per account and region). Turn off if the account
   * already has one that another stack owns. REST only: HTTP API access logs need no such role.
   * @default true
   */
  readonly createCloudWatchRole?: boolean;
  /**
   * Also sets the access log retention (functionOptions.logRetention) and, on REST, stage
   * tracing (functionOptions.tracing). @default DEFAULT_LOG_RETENTION
   */
  readonly functionOptions?: SharedFunctionOptions;
  /**
   * The HTTP API's access log record (API_ACCESS_LOG_FORMATS): `lean` (about 170 B a request) or
   * `standard` (the REST stage's standard fields, about 320 B). REST always writes its standard
   * JSON fields. @default OBSERVABILITY_DEFAULTS.apiAccessLog ('lean')
   */
  readonly accessLogFormat?: ApiAccessLogFormat;
  /** For the admin key secret and the access log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The Hookline API on API Gateway: `/v1/{proxy+}` and `GET /health`, both Lambda proxy
 * integrations to the `api` function; `/v1` behind the bearer-key Lambda authorizer (or IAM),
 * `/health` open. An HTTP API by default (http-api.ts), a REST API with `apiType: 'rest'`
 * (rest-api.ts). Alarms and the dashboard read its request metrics through this construct,
 * whichever type serves it.
 */
export class HooklineApi extends Construct implements ApiDashboardMetrics {
  readonly apiType: ApiType;
  /** With `apiType: 'rest'`. */
  readonly restApi?: apigw.RestApi;
  /** With `apiType: 'http'` (the default). */
  readonly httpApi?: apigwv2.HttpApi;
  readonly handler: HooklineFunction;
  readonly authorizerHandler?: HooklineFunction;
  /** The generated admin bearer key (bearer auth only). Read it with `aws secretsmanager get-secret-value`. */
  readonly adminKeySecret?: secretsmanager.Secret;
  readonly accessLogGroup: logs.LogGroup;
  readonly auth: ApiAuth;
  private readonly stage: { readonly stageName: string; readonly url: string };
  private readonly metricSource: ApiDashboardMetrics;

  constructor(scope: Construct, id: string, props: HooklineApiProps) {
    super(scope, id);
    this.apiType = props.apiType ?? 'http';
    if (!API_TYPES.includes(this.apiType))
      throw new InvalidPropError('apiType', `must be 'http' or 'rest', got '${String(this.apiType)}'`);
    if (this.apiType === 'http' && props.webAclArn !== undefined) {
      throw new InvalidPropError(
        'webAclArn',
        "needs apiType: 'rest': AWS WAF attaches only to REST APIs, not to the HTTP API Hookline deploys by default (-c apiType=rest)",
      );
    }
    if (this.apiType === 'http' && props.stageName !== undefined) {
      throw new InvalidPropError(
        'stageName',
        "needs apiType: 'rest': the HTTP API serves its $default stage at the root of its URL",
      );
    }
    this.auth = props.auth ?? 'bearer';
    if (this.auth !== 'bearer' && this.auth !== 'iam')
      throw new InvalidPropError('apiAuth', `must be 'bearer' or 'iam', got '${String(this.auth)}'`);
    const throttling = props.throttling ?? DEFAULT_API_THROTTLING;
    if (!(throttling.rateLimit > 0) || !Number.isInteger(throttling.burstLimit) || throttling.burstLimit < 1) {
      throw new InvalidPropError('apiThrottling', 'needs rateLimit > 0 and a positive integer burstLimit');
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const cacheTtl = props.authorizerCacheTtl ?? DEFAULT_AUTHORIZER_CACHE_TTL;
    if (cacheTtl.toSeconds() > MAX_AUTHORIZER_CACHE_TTL.toSeconds()) {
      throw new InvalidPropError(
        'authorizerCacheTtl',
        `must be at most ${MAX_AUTHORIZER_CACHE_TTL.toSeconds()} s (a revoked tenant key works until the cached decision expires), got ${cacheTtl.toSeconds()} s`,
      );
    }

    this.handler = new HooklineFunction(this, 'Api', {
      ...functionPropsFrom('api', props),
      sendsTo: [props.deliveryQueue],
      // The web dashboard's files, built at synth time (dashboard/build.ts), go into the bundle beside
      // index.mjs, where the function reads them (lambdas/functions/api.ts): one asset, one deploy.
      afterBundling: (outputDir) => [
        `cp -R ${shellQuoted(builtDashboardFolder())} ${shellQuoted(path.join(outputDir, 'dashboard'))}`,
      ],
      noAsyncFailureDestination:
        'Invoked only synchronously by API Gateway; the caller gets the error response, there is no asynchronous event to keep.',
    });

    if (this.auth === 'bearer') {
      this.adminKeySecret = new secretsmanager.Secret(this, 'AdminKey', {
        description: 'Hookline admin API bearer key (Authorization: Bearer <value>)',
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
        removalPolicy,
      });
      acknowledgeNag(this.adminKeySecret, [
        {
          id: 'AwsSolutions-SMG4',
          reason:
            'A static bearer key handed to operators: automatic rotation would lock out every client holding it. It is rotated by hand (docs/aws.md "Rotating the admin key"); API Gateway caches authorizer decisions for 30 s and each authorizer container the admin key for 5 minutes, so a rotation takes effect within about 5.5 minutes.',
        },
      ]);
      this.authorizerHandler = new HooklineFunction(this, 'Authorizer', {
        ...functionPropsFrom('authorizer', props),
        environmentValues: { ...props.environmentValues, HOOKLINE_ADMIN_KEY_SECRET_ID: this.adminKeySecret.secretArn },
        noAsyncFailureDestination:
          'Invoked only synchronously by API Gateway to authorize a request; there is no asynchronous event to keep.',
      });
      this.adminKeySecret.grantRead(this.authorizerHandler.function);
    }

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.functionOptions?.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy,
    });
    const common = {
      handler: this.handler.function,
      auth: this.auth,
      authorizerHandler: this.authorizerHandler?.function,
      authorizerCacheTtl: cacheTtl,
      throttling,
      accessLogGroup: this.accessLogGroup,
    };
    if (this.apiType === 'rest') {
      const restApi = buildRestApi(this, {
        ...common,
        tracing: props.functionOptions?.tracing ?? OBSERVABILITY_DEFAULTS.tracing,
        stageName: props.stageName ?? 'prod',
        webAclArn: props.webAclArn,
        createCloudWatchRole: props.createCloudWatchRole ?? true,
      });
      this.restApi = restApi;
      this.metricSource = restApi;
      this.stage = { stageName: restApi.deploymentStage.stageName, url: restApi.url };
    } else {
      const { api, stage } = buildHttpApi(this, {
        ...common,
        accessLogFields: API_ACCESS_LOG_FORMATS[props.accessLogFormat ?? OBSERVABILITY_DEFAULTS.apiAccessLog],
      });
      this.httpApi = api;
      this.metricSource = api;
      this.stage = { stageName: HTTP_API_STAGE, url: stage.url };
    }
  }

  /**
   * The stage's base URL, ending in `/`: `https://abc.execute-api.eu-west-1.amazonaws.com/` for
   * the HTTP API, `https://abc.execute-api.eu-west-1.amazonaws.com/prod/` for REST.
   */
  get url(): string {
    return this.stage.url;
  }

  /** The web dashboard (operator console; customer portal links open here): `<url>dashboard`. */
  get consoleUrl(): string {
    // The stage URL is a token ending in a slash: the path is appended, not joined.
    return `${this.stage.url}${DASHBOARD_PATH.slice(1)}`;
  }

  /** The execute-api ARN of `method` (`*` for any) on `path` of this API's stage, for IAM policies. */
  arnForExecuteApi(method: string, path: string): string {
    return (this.restApi ?? this.httpApi!).arnForExecuteApi(method, path, this.stage.stageName);
  }

  metricCount(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metricSource.metricCount(props);
  }

  metricClientError(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metricSource.metricClientError(props);
  }

  metricServerError(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metricSource.metricServerError(props);
  }

  metricLatency(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metricSource.metricLatency(props);
  }

  /** Lets `grantee` call every route (needed with `iam` auth; harmless otherwise). */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: [this.arnForExecuteApi('*', '/*')],
    });
  }

  /** Lets `grantee` read the admin bearer key (bearer auth only). */
  grantReadAdminKey(grantee: iam.IGrantable): iam.Grant {
    if (!this.adminKeySecret) throw new InvalidPropError('apiAuth', "is 'iam': there is no admin key to read");
    return this.adminKeySecret.grantRead(grantee);
  }
}

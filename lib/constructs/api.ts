import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError } from '../errors.ts';
import type { ApiDashboardMetrics } from './dashboard.ts';
import {
  API_ACCESS_LOG_FORMATS,
  type ApiAccessLogFormat,
  API_ENTRY_NAMES,
  API_TYPES,
  type ApiType,
  DASHBOARD_PATH,
  DEFAULT_API_TYPE,
  DEFAULT_AUTH_CACHE_SECONDS,
  OBSERVABILITY_DEFAULTS,
} from '../../lambdas/config/topology.ts';
import type { FunctionConstructProps, SharedFunctionOptions } from './function-options.ts';
import { DEFAULT_LOG_RETENTION, functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import { buildFunctionUrl, functionUrlMetrics } from './function-url.ts';
import { buildHttpApi, HTTP_API_STAGE } from './http-api.ts';
import type { HooklineQueue } from './queues.ts';
import { buildRestApi } from './rest-api.ts';
import { builtDashboardFolder } from '../../dashboard/build.ts';

/** `'…'` for bash: the folder names come from mkdtemp and CDK, but a quote in one must not break the copy. */
const shellQuoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * API Gateway caches each authorizer decision per key this long, and the api its own check's
 * behind a Function URL: a revoked or expired tenant key stops working within it (each lookup
 * reads the key afresh). Short enough for revocation, long enough that a busy key is looked up
 * about twice a minute.
 */
export const DEFAULT_AUTHORIZER_CACHE_TTL = Duration.seconds(DEFAULT_AUTH_CACHE_SECONDS);
/** The longest cache allowed: Hookline promises that a revoked key stops within a minute. */
export const MAX_AUTHORIZER_CACHE_TTL = Duration.seconds(60);

/**
 * How API callers authenticate.
 * - `bearer`: `Authorization: Bearer <key>`, the same scheme as the local runtime, checked
 *   against a key generated in Secrets Manager: by the api itself behind a Function URL, by the
 *   `authorizer` function behind API Gateway.
 * - `iam`: SigV4-signed requests; grant callers with `grantInvoke`. No key, no authorizer.
 */
export type ApiAuth = 'bearer' | 'iam';

/**
 * What serves the API (docs/aws.md, "API type").
 * - `url`: the api function's own Lambda Function URL (no per-request charge), served at the
 *   root of its URL; the api checks bearer keys itself. No stage throttle (cap the function with
 *   `reservedConcurrency.api`), no access log, no WAF.
 * - `http`: an API Gateway HTTP API (v2, $1.00 per million requests), served at the root of
 *   its URL, with a stage throttle and access logs. API Gateway's own errors answer
 *   `{"message": ...}` (a refused key is a 403).
 * - `rest`: a REST API ($3.50 per million), for deployments that need a WAF web ACL
 *   (`webAclArn`), X-Ray traces of the gateway, execution logs or Hookline-shaped gateway errors.
 */
export { API_TYPES, DEFAULT_API_TYPE, type ApiType };

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
  /** @default DEFAULT_API_TYPE ('url') */
  readonly apiType?: ApiType;
  /** @default 'bearer' */
  readonly auth?: ApiAuth;
  /** API Gateway only (`http`, `rest`). @default DEFAULT_API_THROTTLING ({ rateLimit: 100, burstLimit: 200 }) */
  readonly throttling?: ApiThrottling;
  /**
   * How long a bearer key's grant is kept: by API Gateway's authorizer cache (`http`, `rest`), or
   * by the api's own (`url`). On REST the authorizer must then allow the whole API (not just the
   * method it was asked about); an HTTP API's simple response already does. It is how long a
   * revoked or expired tenant key may still get in, so at most MAX_AUTHORIZER_CACHE_TTL (60 s).
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
   * JSON fields; a Function URL writes no access log. @default OBSERVABILITY_DEFAULTS.apiAccessLog ('lean')
   */
  readonly accessLogFormat?: ApiAccessLogFormat;
  /** For the admin key secret and the access log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The Hookline API: the `api` function, and what serves it. By default its own Function URL
 * (function-url.ts), where the api checks bearer keys itself; with `apiType: 'http'` an API
 * Gateway HTTP API (http-api.ts), with `'rest'` a REST API (rest-api.ts): `/v1/{proxy+}` behind
 * the bearer-key Lambda authorizer (or IAM) and the public routes open. Alarms and the dashboard
 * read its request metrics through this construct, whichever entry serves it.
 */
export class HooklineApi extends Construct implements ApiDashboardMetrics {
  readonly apiType: ApiType;
  /** With `apiType: 'rest'`. */
  readonly restApi?: apigw.RestApi;
  /** With `apiType: 'http'`. */
  readonly httpApi?: apigwv2.HttpApi;
  /** With `apiType: 'url'` (the default). */
  readonly functionUrl?: lambda.FunctionUrl;
  readonly handler: HooklineFunction;
  /** Behind API Gateway with bearer auth. */
  readonly authorizerHandler?: HooklineFunction;
  /** The generated admin bearer key (bearer auth only). Read it with `aws secretsmanager get-secret-value`. */
  readonly adminKeySecret?: secretsmanager.Secret;
  /** API Gateway's access log (`http`, `rest`); a Function URL has none. */
  readonly accessLogGroup?: logs.LogGroup;
  readonly auth: ApiAuth;
  private readonly stage: { readonly stageName: string; readonly url: string };
  private readonly metricSource: ApiDashboardMetrics;

  constructor(scope: Construct, id: string, props: HooklineApiProps) {
    super(scope, id);
    this.apiType = props.apiType ?? DEFAULT_API_TYPE;
    if (!API_TYPES.includes(this.apiType))
      throw new InvalidPropError('apiType', `must be 'url', 'http' or 'rest', got '${String(this.apiType)}'`);
    if (this.apiType !== 'rest' && props.webAclArn !== undefined) {
      throw new InvalidPropError(
        'webAclArn',
        `needs apiType: 'rest': AWS WAF attaches only to REST APIs, not to ${API_ENTRY_NAMES[this.apiType]} (-c apiType=rest)`,
      );
    }
    if (this.apiType !== 'rest' && props.stageName !== undefined) {
      throw new InvalidPropError(
        'stageName',
        `needs apiType: 'rest': ${API_ENTRY_NAMES[this.apiType]} serves at the root of its URL`,
      );
    }
    if (this.apiType === 'url') rejectGatewayOnly(props);
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
            'A static bearer key handed to operators: automatic rotation would lock out every client holding it. It is rotated by hand (docs/aws.md "Rotating the admin key"); grants are cached for 30 s and the admin key for 5 minutes per container, so a rotation takes effect within about 5.5 minutes.',
        },
      ]);
    }
    // Behind a Function URL nothing checks a bearer key before the api: it checks them itself.
    const checksKeys = this.apiType === 'url' && this.adminKeySecret !== undefined;
    const apiProps = functionPropsFrom('api', props);
    this.handler = new HooklineFunction(this, 'Api', {
      ...apiProps,
      environmentValues: {
        ...apiProps.environmentValues,
        ...(checksKeys
          ? {
              HOOKLINE_API_ADMIN_KEY_SECRET_ID: this.adminKeySecret!.secretArn,
              HOOKLINE_AUTH_CACHE_SECONDS: String(cacheTtl.toSeconds()),
            }
          : {}),
      },
      sendsTo: [props.deliveryQueue],
      // The web dashboard's files, built at synth time (dashboard/build.ts), go into the bundle beside
      // index.mjs, where the function reads them (lambdas/functions/api.ts): one asset, one deploy.
      afterBundling: (outputDir) => [
        `cp -R ${shellQuoted(builtDashboardFolder())} ${shellQuoted(path.join(outputDir, 'dashboard'))}`,
      ],
      noAsyncFailureDestination:
        'Invoked only synchronously, by its Function URL or API Gateway; the caller gets the error response, there is no asynchronous event to keep.',
    });
    if (checksKeys) this.adminKeySecret!.grantRead(this.handler.function);
    if (this.apiType === 'url') {
      this.functionUrl = buildFunctionUrl(this.handler.function, this.auth);
      this.metricSource = functionUrlMetrics(this.handler.function);
      this.stage = { stageName: '', url: this.functionUrl.url };
      return;
    }
    // From here on: API Gateway's entry, with the authorizer in front of the api.
    if (this.adminKeySecret) {
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
   * The API's base URL, ending in `/`: `https://abc.lambda-url.eu-west-1.on.aws/` for the Function
   * URL, `https://abc.execute-api.eu-west-1.amazonaws.com/` for the HTTP API,
   * `https://abc.execute-api.eu-west-1.amazonaws.com/prod/` for REST.
   */
  get url(): string {
    return this.stage.url;
  }

  /** The web dashboard (operator console; customer portal links open here): `<url>dashboard`. */
  get consoleUrl(): string {
    // The stage URL is a token ending in a slash: the path is appended, not joined.
    return `${this.stage.url}${DASHBOARD_PATH.slice(1)}`;
  }

  /** The execute-api ARN of `method` (`*` for any) on `path` of this API's stage, for IAM policies (API Gateway only). */
  arnForExecuteApi(method: string, path: string): string {
    const gateway = this.restApi ?? this.httpApi;
    if (!gateway)
      throw new InvalidPropError(
        'apiType',
        "is 'url': a Function URL has no execute-api ARN (IAM callers need lambda:InvokeFunctionUrl, grantInvoke)",
      );
    return gateway.arnForExecuteApi(method, path, this.stage.stageName);
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
    if (this.functionUrl) return this.functionUrl.grantInvokeUrl(grantee);
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

/** Props that only an API Gateway entry has: refused with a `url` entry, naming what to use instead. */
function rejectGatewayOnly(props: HooklineApiProps): void {
  if (props.throttling !== undefined)
    throw new InvalidPropError(
      'apiThrottling',
      "needs apiType 'http' or 'rest': a Function URL has no stage throttle; cap the api with reservedConcurrency.api",
    );
  if (props.accessLogFormat !== undefined)
    throw new InvalidPropError('apiAccessLog', "needs apiType 'http': a Function URL writes no access log");
  if (props.createCloudWatchRole !== undefined)
    throw new InvalidPropError(
      'createApiGatewayCloudWatchRole',
      "needs apiType 'rest': a Function URL has no API Gateway stage",
    );
}

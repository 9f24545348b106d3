import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError } from '../errors.ts';
import type { FunctionConstructProps, SharedFunctionOptions } from './function-options.ts';
import { DEFAULT_LOG_RETENTION, functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';

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
  /** @default 'bearer' */
  readonly auth?: ApiAuth;
  /** @default DEFAULT_API_THROTTLING ({ rateLimit: 100, burstLimit: 200 }) */
  readonly throttling?: ApiThrottling;
  /**
   * How long API Gateway caches an authorizer decision per bearer key. The authorizer
   * must then allow the whole API (not just the method it was asked about). It is how long a
   * revoked or expired tenant key may still get in, so at most MAX_AUTHORIZER_CACHE_TTL (60 s).
   * @default DEFAULT_AUTHORIZER_CACHE_TTL (30 seconds)
   */
  readonly authorizerCacheTtl?: Duration;
  /** @default 'prod' */
  readonly stageName?: string;
  /** A regional WAFv2 web ACL to associate with the stage. */
  readonly webAclArn?: string;
  /**
   * Create the account-level role API Gateway needs to write access and execution logs
   * (AWS::ApiGateway::Account, one per account and region). Turn off if the account
   * already has one that another stack owns.
   * @default true
   */
  readonly createCloudWatchRole?: boolean;
  /** Also sets the access log retention (functionOptions.logRetention). @default DEFAULT_LOG_RETENTION */
  readonly functionOptions?: SharedFunctionOptions;
  /** For the admin key secret and the access log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** Error bodies API Gateway itself returns, in Hookline's `{"error": {code, message}}` shape. */
// Unknown paths reach API Gateway as "missing authentication token": answer them as the 404
// they are. The DEFAULT_* entries keep API Gateway's own status code.
const GATEWAY_ERRORS: readonly [apigw.ResponseType, string | undefined, string][] = [
  [apigw.ResponseType.UNAUTHORIZED, '401', 'unauthorized'],
  [apigw.ResponseType.ACCESS_DENIED, '403', 'forbidden'],
  [apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', 'not_found'],
  [apigw.ResponseType.THROTTLED, '429', 'rate_limited'],
  [apigw.ResponseType.DEFAULT_4XX, undefined, 'invalid_request'],
  [apigw.ResponseType.DEFAULT_5XX, undefined, 'internal'],
];

/**
 * The HTTP API on API Gateway (REST, regional): `/v1/{proxy+}` and `GET /health`, both
 * Lambda proxy integrations to the `api` function; `/v1` behind the bearer-key TOKEN
 * authorizer (or IAM), `/health` open. Stage throttling, JSON access logs, execution
 * error logs and X-Ray tracing are on.
 */
export class HooklineApi extends Construct {
  readonly restApi: apigw.RestApi;
  readonly handler: HooklineFunction;
  readonly authorizerHandler?: HooklineFunction;
  /** The generated admin bearer key (bearer auth only). Read it with `aws secretsmanager get-secret-value`. */
  readonly adminKeySecret?: secretsmanager.Secret;
  readonly accessLogGroup: logs.LogGroup;
  readonly auth: ApiAuth;

  constructor(scope: Construct, id: string, props: HooklineApiProps) {
    super(scope, id);
    this.auth = props.auth ?? 'bearer';
    if (this.auth !== 'bearer' && this.auth !== 'iam') throw new InvalidPropError('apiAuth', `must be 'bearer' or 'iam', got '${String(this.auth)}'`);
    const throttling = props.throttling ?? DEFAULT_API_THROTTLING;
    if (!(throttling.rateLimit > 0) || !Number.isInteger(throttling.burstLimit) || throttling.burstLimit < 1) {
      throw new InvalidPropError('apiThrottling', 'needs rateLimit > 0 and a positive integer burstLimit');
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const cacheTtl = props.authorizerCacheTtl ?? DEFAULT_AUTHORIZER_CACHE_TTL;
    if (cacheTtl.toSeconds() > MAX_AUTHORIZER_CACHE_TTL.toSeconds()) {
      throw new InvalidPropError('authorizerCacheTtl', `must be at most ${MAX_AUTHORIZER_CACHE_TTL.toSeconds()} s (a revoked tenant key works until the cached decision expires), got ${cacheTtl.toSeconds()} s`);
    }

    this.handler = new HooklineFunction(this, 'Api', {
      ...functionPropsFrom('api', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination: 'Invoked only synchronously by API Gateway; the caller gets the error response, there is no asynchronous event to keep.',
    });

    let authorizer: apigw.IAuthorizer | undefined;
    if (this.auth === 'bearer') {
      this.adminKeySecret = new secretsmanager.Secret(this, 'AdminKey', {
        description: 'Hookline admin API bearer key (Authorization: Bearer <value>)',
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
        removalPolicy,
      });
      acknowledgeNag(this.adminKeySecret, [
        {
          id: 'AwsSolutions-SMG4',
          reason: 'A static bearer key handed to operators: automatic rotation would lock out every client holding it. It is rotated by hand (docs/aws.md "Rotating the admin key"); API Gateway caches authorizer decisions for 30 s and each authorizer container the admin key for 5 minutes, so a rotation takes effect within about 5.5 minutes.',
        },
      ]);
      this.authorizerHandler = new HooklineFunction(this, 'Authorizer', {
        ...functionPropsFrom('authorizer', props),
        environmentValues: { ...props.environmentValues, HOOKLINE_ADMIN_KEY_SECRET_ID: this.adminKeySecret.secretArn },
        noAsyncFailureDestination: 'Invoked only synchronously by API Gateway to authorize a request; there is no asynchronous event to keep.',
      });
      this.adminKeySecret.grantRead(this.authorizerHandler.function);
      authorizer = new apigw.TokenAuthorizer(this, 'BearerAuthorizer', {
        handler: this.authorizerHandler.function,
        identitySource: apigw.IdentitySource.header('Authorization'),
        resultsCacheTtl: cacheTtl,
      });
    }

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.functionOptions?.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy,
    });
    const createCloudWatchRole = props.createCloudWatchRole ?? true;
    this.restApi = new apigw.RestApi(this, 'RestApi', {
      description: 'Hookline webhook delivery API',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      cloudWatchRole: createCloudWatchRole,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName ?? 'prod',
        throttlingRateLimit: throttling.rateLimit,
        throttlingBurstLimit: throttling.burstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false, // request bodies are customer payloads: never in execution logs
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });
    // The stack emits its own ApiUrl output; the one RestApi adds would duplicate it.
    this.restApi.node.tryRemoveChild('Endpoint');
    for (const [type, statusCode, code] of GATEWAY_ERRORS) {
      this.restApi.addGatewayResponse(`${code}-response`, {
        type,
        statusCode,
        templates: { 'application/json': `{"error":{"code":"${code}","message":$context.error.messageString}}` },
      });
    }

    const integration = new apigw.LambdaIntegration(this.handler.function, { proxy: true, allowTestInvoke: false });
    const protectedMethod: apigw.MethodOptions =
      this.auth === 'bearer'
        ? { authorizer, authorizationType: apigw.AuthorizationType.CUSTOM }
        : { authorizationType: apigw.AuthorizationType.IAM };
    const health = this.restApi.root.addResource('health').addMethod('GET', integration, { authorizationType: apigw.AuthorizationType.NONE });
    acknowledgeNag(health, [
      { id: 'AwsSolutions-APIG4', reason: 'GET /health is the unauthenticated liveness probe by design (docs/design.md); it returns no data.' },
      { id: 'AwsSolutions-COG4', reason: 'GET /health is the unauthenticated liveness probe by design (docs/design.md); it returns no data.' },
    ]);
    const v1 = this.restApi.root.addResource('v1');
    v1.addProxy({ defaultIntegration: integration, anyMethod: true, defaultMethodOptions: protectedMethod });

    if (props.webAclArn !== undefined) {
      new wafv2.CfnWebACLAssociation(this, 'WebAcl', { resourceArn: this.restApi.deploymentStage.stageArn, webAclArn: props.webAclArn });
    }

    acknowledgeNag(
      this.restApi,
      [
        {
          id: 'AwsSolutions-APIG2',
          reason: 'Every route is a Lambda proxy integration; the api handler validates bodies and query strings with the domain rules and answers 4xx in the documented error shape. An API Gateway model would duplicate those rules and drift from the local gateway, which has none.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason: this.auth === 'bearer'
            ? 'Authentication is the bearer-key scheme shared with the local runtime, checked by a Lambda TOKEN authorizer; Hookline has no end users for a Cognito user pool.'
            : 'Authentication is AWS IAM (SigV4); Hookline has no end users for a Cognito user pool.',
        },
        ...(props.webAclArn === undefined
          ? [
              {
                id: 'AwsSolutions-APIG3',
                reason: 'No WAF by default: every /v1 request needs a valid key and the stage is throttled; pass webAclArn to associate a WAFv2 web ACL where the account has one.',
              },
            ]
          : []),
      ],
    );
    if (createCloudWatchRole) {
      const role = this.restApi.node.tryFindChild('CloudWatchRole');
      if (role) {
        acknowledgeNag(role, [
          {
            id: 'AwsSolutions-IAM4',
            reason: 'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy for the account-level role API Gateway uses to write access and execution logs; it must create log groups it cannot know in advance.',
            findings: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'],
          },
        ]);
      }
    }
  }

  /** The stage's base URL, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/prod/`. */
  get url(): string {
    return this.restApi.url;
  }

  /** Lets `grantee` call every route (needed with `iam` auth; harmless otherwise). */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['execute-api:Invoke'],
      resourceArns: [this.restApi.arnForExecuteApi('*', '/*', this.restApi.deploymentStage.stageName)],
    });
  }

  /** Lets `grantee` read the admin bearer key (bearer auth only). */
  grantReadAdminKey(grantee: iam.IGrantable): iam.Grant {
    if (!this.adminKeySecret) throw new InvalidPropError('apiAuth', "is 'iam': there is no admin key to read");
    return this.adminKeySecret.grantRead(grantee);
  }
}

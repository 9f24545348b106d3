import { RemovalPolicy, type Duration } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { PUBLIC_API_ROUTES } from '../../lambdas/config/topology.ts';
import { acknowledgeNag } from '../nag.ts';
import type { ApiAuth, ApiThrottling } from './api.ts';

export interface RestApiOptions {
  readonly handler: lambda.IFunction;
  readonly auth: ApiAuth;
  /** With bearer auth. */
  readonly authorizerHandler?: lambda.IFunction;
  readonly authorizerCacheTtl: Duration;
  readonly throttling: ApiThrottling;
  readonly stageName: string;
  readonly accessLogGroup: logs.ILogGroup;
  readonly webAclArn?: string;
  readonly createCloudWatchRole: boolean;
  /** X-Ray tracing of the stage. */
  readonly tracing: boolean;
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
 * The REST API (regional): `/v1/{proxy+}` and `GET /health`, both Lambda proxy integrations
 * to the `api` function; `/v1` behind the bearer-key TOKEN authorizer (or IAM), `/health`
 * open. Stage throttling, JSON access logs, execution error logs are on, X-Ray tracing with the functions'.
 * Construct ids are those of the REST-only HooklineApi, so existing stacks keep their resources.
 */
export function buildRestApi(scope: Construct, options: RestApiOptions): apigw.RestApi {
  const { auth, throttling } = options;
  const authorizer =
    auth === 'bearer' && options.authorizerHandler
      ? new apigw.TokenAuthorizer(scope, 'BearerAuthorizer', {
          handler: options.authorizerHandler,
          identitySource: apigw.IdentitySource.header('Authorization'),
          resultsCacheTtl: options.authorizerCacheTtl,
        })
      : undefined;

  const restApi = new apigw.RestApi(scope, 'RestApi', {
    description: 'Hookline webhook delivery API',
    endpointTypes: [apigw.EndpointType.REGIONAL],
    cloudWatchRole: options.createCloudWatchRole,
    cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
    deployOptions: {
      stageName: options.stageName,
      throttlingRateLimit: throttling.rateLimit,
      throttlingBurstLimit: throttling.burstLimit,
      accessLogDestination: new apigw.LogGroupLogDestination(options.accessLogGroup),
      accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
      loggingLevel: apigw.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false, // request bodies are customer payloads: never in execution logs
      metricsEnabled: true,
      tracingEnabled: options.tracing,
    },
  });
  if (!options.tracing)
    acknowledgeNag(restApi.deploymentStage, [
      {
        id: 'Serverless-APIGWXrayEnabled',
        reason:
          'Stage tracing follows the functions: off by default (OBSERVABILITY_DEFAULTS.tracing) for its price per trace, on with the tracing prop. Access logs and metrics stay on.',
      },
    ]);
  // The stack emits its own ApiUrl output; the one RestApi adds would duplicate it.
  restApi.node.tryRemoveChild('Endpoint');
  for (const [type, statusCode, code] of GATEWAY_ERRORS) {
    restApi.addGatewayResponse(`${code}-response`, {
      type,
      statusCode,
      templates: { 'application/json': `{"error":{"code":"${code}","message":$context.error.messageString}}` },
    });
  }

  const integration = new apigw.LambdaIntegration(options.handler, { proxy: true, allowTestInvoke: false });
  const protectedMethod: apigw.MethodOptions = authorizer
    ? { authorizer, authorizationType: apigw.AuthorizationType.CUSTOM }
    : { authorizationType: apigw.AuthorizationType.IAM };
  for (const open of PUBLIC_API_ROUTES) {
    // resourceForPath makes nested resources (/dashboard/app.js) and shares /v1 with the proxy below;
    // a static resource wins over the greedy {proxy+} beside it, so an open route under /v1 stays open.
    const method = restApi.root
      .resourceForPath(open.path)
      .addMethod(open.method, integration, { authorizationType: apigw.AuthorizationType.NONE });
    const reason = `${open.method} ${open.path} is open by design (docs/design.md): ${open.why}.`;
    acknowledgeNag(method, [
      { id: 'AwsSolutions-APIG4', reason },
      { id: 'AwsSolutions-COG4', reason },
    ]);
  }
  restApi.root
    .resourceForPath('/v1')
    .addProxy({ defaultIntegration: integration, anyMethod: true, defaultMethodOptions: protectedMethod });

  if (options.webAclArn !== undefined) {
    new wafv2.CfnWebACLAssociation(scope, 'WebAcl', {
      resourceArn: restApi.deploymentStage.stageArn,
      webAclArn: options.webAclArn,
    });
  }

  acknowledgeNag(restApi, [
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'Every route is a Lambda proxy integration; the api handler validates bodies and query strings with the domain rules and answers 4xx in the documented error shape. An API Gateway model would duplicate those rules and drift from the local gateway, which has none.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        auth === 'bearer'
          ? 'Authentication is the bearer-key scheme shared with the local runtime, checked by a Lambda TOKEN authorizer; Hookline has no end users for a Cognito user pool.'
          : 'Authentication is AWS IAM (SigV4); Hookline has no end users for a Cognito user pool.',
    },
    ...(options.webAclArn === undefined
      ? [
          {
            id: 'AwsSolutions-APIG3',
            reason:
              'No WAF by default: every /v1 request needs a valid key and the stage is throttled; pass webAclArn to associate a WAFv2 web ACL where the account has one.',
          },
        ]
      : []),
  ]);
  const role = options.createCloudWatchRole ? restApi.node.tryFindChild('CloudWatchRole') : undefined;
  if (role) {
    acknowledgeNag(role, [
      {
        id: 'AwsSolutions-IAM4',
        reason:
          'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-documented policy for the account-level role API Gateway uses to write access and execution logs; it must create log groups it cannot know in advance.',
        findings: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'],
      },
    ]);
  }
  return restApi;
}

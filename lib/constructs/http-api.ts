import type { Duration } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpIamAuthorizer,
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PUBLIC_API_ROUTES } from '../../lambdas/config/topology.ts';
import { acknowledgeNag } from '../nag.ts';
import type { ApiAuth, ApiThrottling } from './api.ts';

export interface HttpApiOptions {
  readonly handler: lambda.IFunction;
  readonly auth: ApiAuth;
  /** With bearer auth. */
  readonly authorizerHandler?: lambda.IFunction;
  readonly authorizerCacheTtl: Duration;
  readonly throttling: ApiThrottling;
  readonly accessLogGroup: logs.ILogGroup;
  /** The access log record's fields (an API_ACCESS_LOG_FORMATS entry). */
  readonly accessLogFields: Readonly<Record<string, string>>;
}

/** The HTTP API's only stage: it serves at the root of the API's URL, so rawPath never carries a stage prefix. */
export const HTTP_API_STAGE = '$default';

/**
 * The HTTP API (API Gateway v2, regional): `ANY /v1/{proxy+}` and `GET /health`, Lambda proxy
 * integrations (payload 2.0) to the `api` function; `/v1` behind a REQUEST authorizer with
 * simple responses (or IAM), `/health` open. What the REST stage has and HTTP API does not:
 * execution logs (the access log carries their errors, API_ACCESS_LOG_FORMATS), X-Ray tracing
 * (the functions may still trace), gateway responses (API Gateway's own 401/403/404/429 answer
 * `{"message": ...}`), WAF, and the account-level CloudWatch role (HTTP API writes access logs
 * without one).
 */
export function buildHttpApi(
  scope: Construct,
  options: HttpApiOptions,
): { api: apigwv2.HttpApi; stage: apigwv2.HttpStage } {
  const api = new apigwv2.HttpApi(scope, 'HttpApi', {
    description: 'Hookline webhook delivery API',
    createDefaultStage: false,
  });
  const stage = api.addStage('DefaultStage', {
    stageName: HTTP_API_STAGE,
    autoDeploy: true,
    throttle: { rateLimit: options.throttling.rateLimit, burstLimit: options.throttling.burstLimit },
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(options.accessLogGroup),
      format: AccessLogFormat.custom(JSON.stringify(options.accessLogFields)),
    },
    // The per-route counterpart of the REST stage's metricsEnabled.
    detailedMetricsEnabled: true,
  });

  const authorizer =
    options.auth === 'bearer' && options.authorizerHandler
      ? new HttpLambdaAuthorizer('BearerAuthorizer', options.authorizerHandler, {
          responseTypes: [HttpLambdaResponseType.SIMPLE],
          identitySource: ['$request.header.Authorization'],
          resultsCacheTtl: options.authorizerCacheTtl,
        })
      : new HttpIamAuthorizer();
  const integration = new HttpLambdaIntegration('Api', options.handler, {
    payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
  });
  for (const open of PUBLIC_API_ROUTES) {
    // An open route under /v1 (the portal code exchange) is more specific than /v1/{proxy+}, so API Gateway picks it.
    const [route] = api.addRoutes({
      path: open.path,
      methods: [open.method as apigwv2.HttpMethod],
      integration,
      authorizer: new apigwv2.HttpNoneAuthorizer(),
    });
    acknowledgeNag(route!, [
      {
        id: 'AwsSolutions-APIG4',
        reason: `${open.method} ${open.path} is open by design (docs/design.md): ${open.why}.`,
      },
    ]);
  }
  api.addRoutes({ path: '/v1/{proxy+}', methods: [apigwv2.HttpMethod.ANY], integration, authorizer });
  return { api, stage };
}

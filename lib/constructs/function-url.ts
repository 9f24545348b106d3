import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { ApiAuth } from './api.ts';
import type { ApiDashboardMetrics } from './dashboard.ts';

/**
 * The `api` function's own URL (a Lambda Function URL, payload 2.0, buffered): the default API
 * entry. No per-request charge, unlike API Gateway ($1.00 a million on an HTTP API), because
 * the api checks bearer keys itself (handlers/api/in-process-auth.ts). With `iam` auth the URL is
 * AWS_IAM and Lambda checks the SigV4 signature, as API Gateway's IAM authorizer does. What an
 * API Gateway entry has and this has not: a stage throttle (cap the function with
 * `reservedConcurrency.api`), access logs, WAF, and a custom domain without CloudFront.
 */
export function buildFunctionUrl(handler: lambda.Function, auth: ApiAuth): lambda.FunctionUrl {
  return handler.addFunctionUrl({
    authType: auth === 'iam' ? lambda.FunctionUrlAuthType.AWS_IAM : lambda.FunctionUrlAuthType.NONE,
    invokeMode: lambda.InvokeMode.BUFFERED,
  });
}

/**
 * The URL's request metrics, which Lambda publishes per function (AWS/Lambda, `Url*`): what the
 * alarms and the dashboard read in place of API Gateway's `Count`, `4XXError`, `5XXError` and
 * `Latency`. `Url5xxCount` counts the api's own 5xx answers and Lambda's (a throttle, a timeout).
 */
export function functionUrlMetrics(handler: lambda.IFunction): ApiDashboardMetrics {
  const metric = (metricName: string, statistic: string) => (props?: cloudwatch.MetricOptions) =>
    new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { FunctionName: handler.functionName },
      statistic,
      period: Duration.minutes(5),
      ...props,
    });
  return {
    metricCount: metric('UrlRequestCount', 'Sum'),
    metricClientError: metric('Url4xxCount', 'Sum'),
    metricServerError: metric('Url5xxCount', 'Sum'),
    metricLatency: metric('UrlRequestLatency', 'Average'),
  };
}

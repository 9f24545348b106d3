import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  API_ACCESS_LOG_FORMATS,
  COMMON_ENVIRONMENT,
  METRICS,
  DEFAULT_API_TYPE,
  OBSERVABILITY_DEFAULTS,
  type ApiAccessLogFormat,
  type ApiType,
} from '#config/topology.ts';

// What Lambda and API Gateway write beside the handlers' own records, rendered from their formats.

/** Bytes of Lambda's platform records per invocation (START, END, REPORT; XRAY with tracing), written at INFO only. */
export const PLATFORM_LINES_BYTES = { base: 61 + 52 + 140, xray: 100 } as const;

/**
 * The access log bytes one API request writes at the stack's default entry: none behind a
 * Function URL (it keeps no access log), the HTTP API's record otherwise.
 */
export function entryAccessLogBytes(apiType: ApiType = DEFAULT_API_TYPE): number {
  return apiType === 'url' ? 0 : accessLogRecordBytes();
}

/** One access log record as the HTTP API writes it, with typical values. */
export function accessLogRecordBytes(format: ApiAccessLogFormat = OBSERVABILITY_DEFAULTS.apiAccessLog): number {
  const typical: Record<string, string> = {
    requestId: 'Ab1cDefGhIjKlMn=',
    ip: '203.0.113.10',
    caller: '-',
    user: '-',
    requestTime: '02/Dec/2026:10:00:00 +0000',
    httpMethod: 'POST',
    routeKey: 'ANY /v1/{proxy+}',
    path: '/v1/events',
    status: '202',
    protocol: 'HTTP/1.1',
    responseLength: '120',
    integrationLatency: '35',
    authorizerError: '-',
    integrationError: '-',
  };
  return Buffer.byteLength(
    `${JSON.stringify(Object.fromEntries(Object.keys(API_ACCESS_LOG_FORMATS[format]).map((k) => [k, typical[k] ?? '-'])))}\n`,
  );
}

/**
 * One EMF document as Powertools Metrics flushes it at the end of an invocation: rendered here for
 * a sender batch of 10 (a count and 10 latencies), the largest the handlers write.
 */
export function emfDocumentBytes(): number {
  const metrics = new Metrics({
    namespace: COMMON_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
    serviceName: COMMON_ENVIRONMENT.POWERTOOLS_SERVICE_NAME,
  });
  metrics.addMetric(METRICS.succeeded, MetricUnit.Count, 10);
  for (let i = 0; i < 10; i++) metrics.addMetric(METRICS.attemptLatency, MetricUnit.Milliseconds, 100 + i);
  return Buffer.byteLength(`${JSON.stringify(metrics.serializeMetrics())}\n`);
}

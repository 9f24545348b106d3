import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';

export interface Observability {
  readonly logger: Logger;
  /** Absent locally: the local runtime counts in memory instead of printing EMF. */
  readonly metrics?: Metrics;
}

/** Powertools logger and EMF metrics named from COMMON_ENVIRONMENT (POWERTOOLS_* variables). */
export function awsObservability(): Observability {
  return { logger: new Logger(), metrics: new Metrics() };
}

/** Wraps a handler with the Powertools middlewares: Lambda context in every log line, metrics flushed per invocation. */
export function withObservability<E, R>(handler: (event: E, context: Context) => Promise<R>, obs: Observability) {
  const wrapped = middy(handler).use(injectLambdaContext(obs.logger));
  return obs.metrics ? wrapped.use(logMetrics(obs.metrics)) : wrapped;
}

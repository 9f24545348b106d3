import { buildOperatorDeps } from '#adapters/operator-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createApiHandler(buildOperatorDeps('api', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

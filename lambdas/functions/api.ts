import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createApiHandler(buildDeps('api', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

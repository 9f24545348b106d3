import { buildServiceDeps } from '#adapters/service-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createIngestHandler } from '#handlers/ingest.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createIngestHandler(buildServiceDeps('ingest', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

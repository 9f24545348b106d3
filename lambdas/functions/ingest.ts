import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createIngestHandler } from '#handlers/ingest.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createIngestHandler(buildDeps('ingest', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

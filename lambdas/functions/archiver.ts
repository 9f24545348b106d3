import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createArchiverHandler } from '#handlers/archiver.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createArchiverHandler(buildDeps('archiver', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

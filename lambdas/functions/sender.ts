import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createSenderHandler } from '#handlers/sender.ts';

const obs = awsObservability();
export const handler = createSenderHandler(buildDeps('sender', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

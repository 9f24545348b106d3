import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createReplayHandler } from '#handlers/replay.ts';

const obs = awsObservability();
export const handler = createReplayHandler(buildDeps('replay', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

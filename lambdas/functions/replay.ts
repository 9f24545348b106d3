import { buildOperatorDeps } from '#adapters/operator-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createReplayHandler } from '#handlers/replay.ts';

const obs = awsObservability();
export const handler = createReplayHandler(buildOperatorDeps('replay', process.env, { metrics: powertoolsMetrics(obs.metrics!) }), obs);

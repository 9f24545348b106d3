import { buildDeps, sweepGraceSeconds } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createSweeperHandler } from '#handlers/sweeper.ts';

const obs = awsObservability();
export const handler = createSweeperHandler(
  buildDeps('sweeper', process.env, { metrics: powertoolsMetrics(obs.metrics!) }),
  { graceSeconds: sweepGraceSeconds(process.env) },
  obs,
);

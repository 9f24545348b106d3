import { buildDeps, sweepGraceSeconds } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createSweeperHandler } from '#handlers/sweeper.ts';
import { ENGINE_STORE_FACTORIES, MANIFEST_STORE_FACTORIES } from '#adapters/deps/engine-store-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';

const obs = awsObservability();
export const handler = createSweeperHandler(
  buildDeps(
    'sweeper',
    process.env,
    { metrics: powertoolsMetrics(obs.metrics!) },
    { ...ENGINE_STORE_FACTORIES, ...MANIFEST_STORE_FACTORIES, ...SQS_FACTORIES, ...SETTING_FACTORIES },
  ),
  { graceSeconds: sweepGraceSeconds(process.env) },
  obs,
);

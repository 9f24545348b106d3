import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createReplayHandler } from '#handlers/replay.ts';
import { DYNAMODB_FACTORIES } from '#adapters/deps/dynamodb-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';

const obs = awsObservability();
export const handler = createReplayHandler(
  buildDeps(
    'replay',
    process.env,
    { metrics: powertoolsMetrics(obs.metrics!) },
    { ...DYNAMODB_FACTORIES, ...SQS_FACTORIES, ...SETTING_FACTORIES },
  ),
  obs,
);

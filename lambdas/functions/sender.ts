import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { awsObservability } from '#handlers/observability.ts';
import { createSenderHandler } from '#handlers/sender.ts';
import { ENGINE_STORE_FACTORIES } from '#adapters/deps/engine-store-factories.ts';
import { SECRETS_FACTORIES } from '#adapters/deps/secrets-factories.ts';
import { HTTP_FACTORIES, SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';

const obs = awsObservability();
export const handler = createSenderHandler(
  buildDeps(
    'sender',
    process.env,
    { metrics: powertoolsMetrics(obs.metrics!) },
    { ...ENGINE_STORE_FACTORIES, ...SQS_FACTORIES, ...SECRETS_FACTORIES, ...SETTING_FACTORIES, ...HTTP_FACTORIES },
  ),
  obs,
);

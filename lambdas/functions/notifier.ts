import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { DYNAMODB_FACTORIES } from '#adapters/deps/dynamodb-factories.ts';
import { MAIL_FACTORIES } from '#adapters/deps/mail-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';
import { createNotifierHandler } from '#handlers/notifier.ts';
import { awsObservability } from '#handlers/observability.ts';

const obs = awsObservability();
export const handler = createNotifierHandler(
  buildDeps(
    'notifier',
    process.env,
    { metrics: powertoolsMetrics(obs.metrics!) },
    { ...DYNAMODB_FACTORIES, ...SQS_FACTORIES, ...SETTING_FACTORIES, ...MAIL_FACTORIES },
  ),
  obs,
);

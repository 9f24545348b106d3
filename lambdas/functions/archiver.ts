import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { createArchiverHandler } from '#handlers/archiver.ts';
import { awsObservability } from '#handlers/observability.ts';
import { DYNAMODB_FACTORIES } from '#adapters/deps/dynamodb-factories.ts';
import { S3_FACTORIES } from '#adapters/deps/s3-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';

const obs = awsObservability();
export const handler = createArchiverHandler(
  buildDeps(
    'archiver',
    process.env,
    { metrics: powertoolsMetrics(obs.metrics!) },
    { ...DYNAMODB_FACTORIES, ...S3_FACTORIES, ...SETTING_FACTORIES },
  ),
  obs,
);

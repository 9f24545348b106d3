import { buildDeps } from '#adapters/function-deps.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import type { Context, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { createFanOutHandler, isStreamEvent } from '#handlers/fan-out.ts';
import { createIngestHandler } from '#handlers/ingest.ts';
import { awsObservability } from '#handlers/observability.ts';
import {
  CATALOG_STORE_FACTORIES,
  ENGINE_STORE_FACTORIES,
  MANIFEST_STORE_FACTORIES,
} from '#adapters/deps/engine-store-factories.ts';
import { SCHEMA_FACTORIES } from '#adapters/deps/schema-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';

const obs = awsObservability();
const deps = buildDeps(
  'ingest',
  process.env,
  { metrics: powertoolsMetrics(obs.metrics!) },
  {
    ...ENGINE_STORE_FACTORIES,
    ...MANIFEST_STORE_FACTORIES,
    ...CATALOG_STORE_FACTORIES,
    ...SQS_FACTORIES,
    ...SETTING_FACTORIES,
    ...SCHEMA_FACTORIES,
  },
);
const ingest = createIngestHandler(deps, obs);
const fanOut = createFanOutHandler(deps, obs);

/** Two event sources: the ingest queue (publish) and the events table's stream (the fan-out of what was stored). */
export const handler = (event: SQSEvent | DynamoDBStreamEvent, context: Context) =>
  isStreamEvent(event) ? fanOut(event, context) : ingest(event, context);

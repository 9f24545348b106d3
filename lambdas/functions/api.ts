import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { buildDeps } from '#adapters/function-deps.ts';
import { FolderDashboardAssets } from '#adapters/folder-dashboard-assets.ts';
import { powertoolsMetrics } from '#adapters/powertools-metrics.ts';
import { sealPlainSecrets } from '#app/secrets/seal-plain-secrets.ts';
import { SecretsManagerKeySource } from '#adapters/secrets-manager-key-source.ts';
import { bearerGrants } from '#app/credentials/bearer-grants.ts';
import { parseNonNegativeInt, readFunctionEnv } from '#config/env.ts';
import { createApiHandler } from '#handlers/api/handler.ts';
import { inProcessAuthenticator } from '#handlers/api/in-process-auth.ts';
import { awsObservability } from '#handlers/observability.ts';
import { DYNAMODB_FACTORIES } from '#adapters/deps/dynamodb-factories.ts';
import { LAMBDA_FACTORIES } from '#adapters/deps/lambda-factories.ts';
import { SCHEMA_FACTORIES } from '#adapters/deps/schema-factories.ts';
import { SECRETS_FACTORIES } from '#adapters/deps/secrets-factories.ts';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import { SQS_FACTORIES } from '#adapters/deps/sqs-factories.ts';

const obs = awsObservability();
const deps = buildDeps(
  'api',
  process.env,
  { metrics: powertoolsMetrics(obs.metrics!) },
  {
    ...DYNAMODB_FACTORIES,
    ...SQS_FACTORIES,
    ...SECRETS_FACTORIES,
    ...SETTING_FACTORIES,
    ...LAMBDA_FACTORIES,
    ...SCHEMA_FACTORIES,
  },
);
// Behind a Function URL with bearer auth (the default entry) no authorizer runs first: the api
// checks each credential itself, by the authorizer's rule, with API Gateway's cache in its place.
const { HOOKLINE_API_ADMIN_KEY_SECRET_ID: adminKeySecretId, HOOKLINE_AUTH_CACHE_SECONDS: cacheSeconds } =
  readFunctionEnv('api', process.env);
const authenticate =
  adminKeySecretId === 'none'
    ? undefined
    : inProcessAuthenticator(
        bearerGrants({
          adminKey: new SecretsManagerKeySource(new SecretsManagerClient({}), adminKeySecretId),
          tenantKeys: deps.apiKeys,
          portalSessions: deps.portalSessions,
        }),
        parseNonNegativeInt('HOOKLINE_AUTH_CACHE_SECONDS', cacheSeconds) * 1000,
      );
// The dashboard's files sit next to this bundle: the CDK builds them into it (lib/constructs/api.ts).
// No mailbox: on AWS notices go to SES and are not kept.
const api = createApiHandler(deps, obs, {
  dashboard: new FolderDashboardAssets(new URL('./dashboard/', import.meta.url)),
  ...(authenticate ? { authenticate } : {}),
});

// Rows written before secrets were sealed are sealed by the one function that may seal, once
// per container before its first request (conditional writes: racing containers write once).
// Not at import: a cold start must not fail on DynamoDB. Until then the sender signs with the
// plain list it finds (docs/design.md, "Secrets at rest").
let migrated: Promise<void> | undefined;
export const handler = async (...args: Parameters<typeof api>): Promise<APIGatewayProxyResult> => {
  migrated ??= sealPlainSecrets(deps).then(
    (sealed) => void (sealed > 0 && obs.logger.info('sealed plain-text signing secrets', { sealed })),
    (error: unknown) =>
      void obs.logger.error('could not seal plain-text signing secrets; the next container retries', {
        error: error as Error,
      }),
  );
  await migrated;
  return api(...args);
};

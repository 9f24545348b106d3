import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDbApiKeyStore } from '#adapters/dynamodb-api-key-store.ts';
import { DynamoDbPortalSessionStore } from '#adapters/dynamodb-portal-session-store.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { SecretsManagerKeySource } from '#adapters/secrets-manager-key-source.ts';
import { readFunctionEnv } from '#config/env.ts';
import { createAuthorizerHandler } from '#handlers/authorizer.ts';
import { awsObservability } from '#handlers/observability.ts';

const { HOOKLINE_ADMIN_KEY_SECRET_ID, API_KEYS_TABLE, PORTAL_SESSIONS_TABLE } = readFunctionEnv(
  'authorizer',
  process.env,
);
const db = documentClient();
export const handler = createAuthorizerHandler(
  new SecretsManagerKeySource(new SecretsManagerClient({}), HOOKLINE_ADMIN_KEY_SECRET_ID),
  { logger: awsObservability().logger },
  new DynamoDbApiKeyStore(db, API_KEYS_TABLE),
  Date.now,
  new DynamoDbPortalSessionStore(db, PORTAL_SESSIONS_TABLE),
);

import { DYNAMODB_FACTORIES } from './dynamodb-factories.ts';
import { LAMBDA_FACTORIES } from './lambda-factories.ts';
import { MAIL_FACTORIES } from './mail-factories.ts';
import type { Factories } from './factory.ts';
import { S3_FACTORIES } from './s3-factories.ts';
import { SCHEMA_FACTORIES } from './schema-factories.ts';
import { SECRETS_FACTORIES } from './secrets-factories.ts';
import { HTTP_FACTORIES, SETTING_FACTORIES } from './setting-factories.ts';
import { SQS_FACTORIES } from './sqs-factories.ts';

/**
 * Every factory, for the local runtime and tests: one process serves every function there, so
 * bundle size does not matter. A Lambda entry passes only the groups its function uses.
 */
export const ALL_FACTORIES: Factories = {
  ...DYNAMODB_FACTORIES,
  ...SQS_FACTORIES,
  ...S3_FACTORIES,
  ...SECRETS_FACTORIES,
  ...SETTING_FACTORIES,
  ...HTTP_FACTORIES,
  ...MAIL_FACTORIES,
  ...LAMBDA_FACTORIES,
  ...SCHEMA_FACTORIES,
};

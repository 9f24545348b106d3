import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { createAuthorizerHandler, UNAUTHORIZED } from '#handlers/authorizer.ts';

/** The auth scheme is case-insensitive (RFC 7235 §2.1); the key itself is not. */

const KEY = 'hk_live_4f0c9a7d2e';
const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'r',
  functionName: 'authorizer',
} as unknown as Context;
const event = (authorizationToken: string): APIGatewayTokenAuthorizerEvent =>
  ({
    type: 'TOKEN',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/prod/GET/v1/subscriptions',
    authorizationToken,
  }) as APIGatewayTokenAuthorizerEvent;
const authorize = createAuthorizerHandler(new StaticKeySource(KEY), { logger: new Logger({ logLevel: 'SILENT' }) });

describe('authorizer: the Bearer scheme', () => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    it(`accepts the scheme written '${scheme}'`, async () => {
      const result = await authorize(event(`${scheme} ${KEY}`), context);
      assert.equal(result.principalId, 'admin');
    });
  }

  for (const token of [
    `Bearer ${KEY.toUpperCase()}`,
    `Bearer\t${KEY}`,
    `Bearer${KEY}`,
    `Bearers ${KEY}`,
    `Basic ${KEY}`,
  ]) {
    it(`refuses ${JSON.stringify(token)}`, async () => {
      await assert.rejects(authorize(event(token), context), { message: UNAUTHORIZED });
    });
  }
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { StaticKeySource } from '#adapters/secrets-manager-key-source.ts';
import { createAuthorizerHandler, keyMatches, UNAUTHORIZED } from '#handlers/authorizer.ts';

const KEY = 'hk_live_4f0c9a7d2e';
const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/prod/GET/v1/deliveries/dlv_1';

const context: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'hookline-authorizer',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:hookline-authorizer',
  memoryLimitInMB: '256',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/hookline-authorizer',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

const event = (authorizationToken: string | undefined): APIGatewayTokenAuthorizerEvent =>
  ({ type: 'TOKEN', methodArn: METHOD_ARN, authorizationToken }) as APIGatewayTokenAuthorizerEvent;

const handlerWith = (key: string) =>
  createAuthorizerHandler(new StaticKeySource(key), { logger: new Logger({ logLevel: 'SILENT' }) });

describe('authorizer handler', () => {
  it('allows every route of the stage for the right key, with the admin role', async () => {
    const result = await handlerWith(KEY)(event(`Bearer ${KEY}`), context);

    assert.deepEqual(result, {
      principalId: 'admin',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/prod/*',
          },
        ],
      },
      context: { role: 'admin' },
    });
  });

  const refused: ReadonlyArray<readonly [string, string | undefined]> = [
    ['a wrong key', 'Bearer hk_live_wrong'],
    ['the right key with a suffix', `Bearer ${KEY}x`],
    ['a prefix of the right key', `Bearer ${KEY.slice(0, -1)}`],
    ['no header', undefined],
    ['an empty header', ''],
    ['the bare key without Bearer', KEY],
    ['another scheme', `Basic ${KEY}`],
    ['the key in another case (the scheme is case-insensitive, the key is not)', `bearer ${KEY.toUpperCase()}`],
    ['two spaces', `Bearer  ${KEY}`],
    ['a trailing space', `Bearer ${KEY} `],
    ['Bearer and nothing else', 'Bearer '],
    ['a key with a control character', `Bearer ${KEY}\u0007`],
    ['a key longer than 512 characters', `Bearer ${'k'.repeat(513)}`],
  ];
  for (const [label, header] of refused) {
    it(`throws Unauthorized for ${label}`, async () => {
      await assert.rejects(
        handlerWith(KEY)(event(header), context),
        (e: unknown) => e instanceof Error && e.message === 'Unauthorized',
      );
    });
  }

  it('refuses every key when the configured key is empty', async () => {
    await assert.rejects(handlerWith('')(event('Bearer anything'), context), { message: UNAUTHORIZED });
  });

  it('accepts a 512-character key', async () => {
    const long = 'k'.repeat(512);

    const result = await handlerWith(long)(event(`Bearer ${long}`), context);

    assert.equal(result.principalId, 'admin');
  });
});

describe('keyMatches', () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    [KEY, KEY, true],
    ['other', KEY, false],
    ['', KEY, false],
    [KEY.toUpperCase(), KEY, false],
    ['', '', false],
    ['anything', '', false],
  ];
  for (const [offered, expected, result] of cases) {
    it(`is ${result} for '${offered}' against '${expected}'`, () => {
      assert.equal(keyMatches(offered, expected), result);
    });
  }
});

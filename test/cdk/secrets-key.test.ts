import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TABLES, type FunctionKey } from '../../lambdas/config/topology.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { defaultHookline, resourcesOfType, TEST_ENV } from './helpers/synth.ts';
import { actionsOf, allowedActionsOn, arn, assertPlainKeyTable, statementsOf } from './helpers/template.ts';

/**
 * Signing secrets are envelope-encrypted under their own customer-managed key: only the api
 * may create data keys (it seals at creation and rotation), only the api (rotation, reading
 * the secret) and the sender (it signs) may decrypt them, and no other function may use the key at all.
 */
const { template, json, stack } = defaultHookline();
/** The default stack's functions: every FUNCTIONS entry but the authorizer, which only an API Gateway entry has. */
const FUNCTION_KEYS = Object.keys(stack.delivery.functions) as FunctionKey[];
const keys = resourcesOfType(json, 'AWS::KMS::Key').filter(
  ([, r]) => r.Properties?.Description === 'Hookline subscription signing secrets (envelope encryption)',
);
const keyId = keys[0]?.[0] ?? 'missing';

describe('the signing-secrets KMS key', () => {
  test('one customer-managed symmetric key with rotation on, retained like the data it protects', () => {
    assert.equal(keys.length, 1);
    const [, key] = keys[0]!;
    assert.equal(key.Properties?.EnableKeyRotation, true);
    assert.equal(key.Properties?.KeySpec, undefined, 'the default SYMMETRIC_DEFAULT');
    template.hasResource('AWS::KMS::Key', {
      Properties: { Description: key.Properties?.Description },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  test('its key policy names no function and no service: only the account, which delegates to IAM', () => {
    const statements = (
      json.Resources[keyId]!.Properties!.KeyPolicy as {
        Statement: { Principal: unknown; Action: unknown; Effect: string }[];
      }
    ).Statement;
    assert.deepEqual(statements, [
      {
        Action: 'kms:*',
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${TEST_ENV.account}:root` },
        Resource: '*',
      },
    ]);
  });

  const condition = { StringEquals: { 'kms:EncryptionContext:purpose': 'hookline-signing-secrets' } };

  test('api: kms:GenerateDataKey and kms:Decrypt (rotation, reading the secret) on this key only, under the secrets encryption context', () => {
    const kms = statementsOf(json, 'api').filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
    // The two grants share a resource and a condition, so CDK merges them into one statement.
    assert.deepEqual(kms, [
      { Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Effect: 'Allow', Resource: arn(keyId), Condition: condition },
    ]);
  });

  test('sender: kms:Decrypt on this key only, under the secrets encryption context; nothing that creates data keys', () => {
    const kms = statementsOf(json, 'sender').filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
    assert.deepEqual(kms, [{ Action: 'kms:Decrypt', Effect: 'Allow', Resource: arn(keyId), Condition: condition }]);
  });

  test('no other function may use the key, nor any KMS action', () => {
    for (const key of FUNCTION_KEYS.filter((k) => k !== 'api' && k !== 'sender')) {
      assert.equal(allowedActionsOn(json, key, keyId).size, 0, key);
      assert.deepEqual(
        statementsOf(json, key)
          .flatMap(actionsOf)
          .filter((a) => a.startsWith('kms:')),
        [],
        key,
      );
    }
  });

  test('the api is told the key to seal and open with, the sender the key to open with, nobody else either', () => {
    for (const key of FUNCTION_KEYS) {
      const vars = (
        findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      assert.deepEqual(vars.HOOKLINE_SECRETS_SEAL_KEY_ID, key === 'api' ? arn(keyId) : undefined, `${key} seal`);
      assert.deepEqual(
        vars.HOOKLINE_SECRETS_OPEN_KEY_ID,
        key === 'sender' || key === 'api' ? arn(keyId) : undefined,
        `${key} open`,
      );
    }
  });
});

describe('the signing-secrets keyring table', () => {
  const table = findTopologyResource(json, 'table/keyring');

  test('keyed on the ring alone, on demand, recoverable, protected, with no index or TTL', () => {
    assert.equal(TABLES.keyring.partitionKey.name, 'ring');
    assertPlainKeyTable(template, json, 'keyring');
  });

  test('only the sealing function knows it and may touch it: the api; the sender opens without it', () => {
    for (const key of FUNCTION_KEYS) {
      const vars = (
        findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      assert.deepEqual(vars.KEYRING_TABLE, key === 'api' ? { Ref: table.logicalId } : undefined, key);
      const actions = allowedActionsOn(json, key, table.logicalId);
      if (key === 'api') for (const a of ['dynamodb:GetItem', 'dynamodb:PutItem']) assert.ok(actions.has(a), a);
      else assert.equal(actions.size, 0, key);
    }
  });
});

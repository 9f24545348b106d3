/**
 * The DynamoDB subscription store's rotation write on a real DynamoDB API (dynalite, or the
 * endpoint in AWS_ENDPOINT_URL_DYNAMODB): it is conditioned on the secrets version it read, so
 * two rotations from the same read, in the same millisecond, give one winner.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import type { SealedSecrets } from '#domain/types.ts';
import { aSubscription } from '#test/fakes.ts';

const tables = contractTables('subscription-secrets');
const NOW = '2026-12-01T12:00:00.000Z';
const sealed = (data: string): SealedSecrets => ({ scheme: 'local-v1', iv: 'iv', tag: 'tag', data });

describe('DynamoDbSubscriptionStore.replaceSecrets', () => {
  it('writes only while the secrets are at the version read: the second of two rotations from one read is refused, the clock unchanged', async () => {
    const { table, dispose } = await tables.open(TABLES.subscriptions);
    try {
      const store = new DynamoDbSubscriptionStore(documentClient(tables.client()), table, 0);
      await store.create({ ...aSubscription({ id: 'sub_v', updatedAt: NOW }), secrets: sealed('first') });
      const read = (await store.get('sub_v'))!;
      assert.equal(read.secretsVersion, undefined, 'never replaced yet');

      const first = await store.replaceSecrets(
        'sub_v',
        { sealed: sealed('second'), expiry: [null, NOW] },
        NOW,
        read.secretsVersion,
      );
      assert.equal(first?.secretsVersion, 1);
      const second = await store.replaceSecrets(
        'sub_v',
        { sealed: sealed('third'), expiry: [null, NOW] },
        NOW,
        read.secretsVersion,
      );
      assert.equal(second, undefined, 'the same read, the same updatedAt: refused');
      assert.equal(
        ((await store.get('sub_v'))!.secrets as SealedSecrets).data,
        'second',
        "the first rotation's secret is kept",
      );

      const next = await store.replaceSecrets('sub_v', { sealed: sealed('fourth'), expiry: [null] }, NOW, 1);
      assert.equal(next?.secretsVersion, 2, 'a rotation from the current version goes through');
      await store.setState('sub_v', 'deleted', 'deleted by request', NOW);
      assert.equal(
        await store.replaceSecrets('sub_v', { sealed: sealed('fifth'), expiry: [null] }, NOW, 2),
        undefined,
        'never on a deleted subscription',
      );
    } finally {
      await dispose();
    }
  });
});

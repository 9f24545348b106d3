import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TableDescription } from '@aws-sdk/client-dynamodb';
import { TABLES } from '#config/topology.ts';
import { DataLayoutError, layoutDifferences } from '#local/data-layout.ts';
import { createTableInput } from '#local/provision.ts';

/** A table as DescribeTable shows it, built from a CreateTable input (what the emulator kept of it). */
const described = (input: ReturnType<typeof createTableInput>): TableDescription => ({
  TableName: input.TableName!,
  KeySchema: input.KeySchema!,
  ...(input.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: input.GlobalSecondaryIndexes } : {}),
});

/**
 * The deliveries table as an older layout had it: keyed on `id`, with a keys-only per-subscription
 * index on `partitionKey`, `createdAt`, beside the indexes of today's that `kept` picks.
 */
function deliveriesKeyedOnId(indexName: string, partitionKey: string, kept: (indexName: string) => boolean) {
  const current = createTableInput(TABLES.deliveries);
  return {
    ...current,
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' as const }],
    GlobalSecondaryIndexes: [
      {
        IndexName: indexName,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' as const },
          { AttributeName: 'createdAt', KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' as const },
      },
      ...current.GlobalSecondaryIndexes!.filter((i) => kept(i.IndexName!)),
    ],
  };
}

describe('the data layout check', () => {
  it('finds nothing to say about every table as this version creates it', () => {
    for (const def of Object.values(TABLES))
      assert.deepEqual(layoutDifferences(described(createTableInput(def)), def), [], def.localName);
  });

  it('names the key and each index of the older unsharded deliveries layout, and each one this version lacks there', () => {
    const older = deliveriesKeyedOnId('bySubscription', 'subscriptionId', (name) => name === 'active');
    const found = layoutDifferences(described(older), TABLES.deliveries);
    assert.deepEqual(found, [
      'table hookline-deliveries is keyed on id; this version keys it on subscriptionShard, listKey (sort)',
      'table hookline-deliveries has index bySubscription on subscriptionId, createdAt (sort), KEYS_ONLY, which this version does not have',
      'table hookline-deliveries lacks index deadLetterShard on dlShard, updatedAt (sort), ALL',
      'table hookline-deliveries lacks index deadLettersBySubscriptionShard on dlSubscriptionShard, updatedAt (sort), ALL',
    ]);
  });

  it('refuses the deliveries table keyed on id with its per-subscription index (the layout before the table was keyed on its listing)', () => {
    const keyedOnId = deliveriesKeyedOnId('bySubscriptionShard', 'subscriptionShard', () => true);
    assert.deepEqual(layoutDifferences(described(keyedOnId), TABLES.deliveries), [
      'table hookline-deliveries is keyed on id; this version keys it on subscriptionShard, listKey (sort)',
      'table hookline-deliveries has index bySubscriptionShard on subscriptionShard, createdAt (sort), KEYS_ONLY, which this version does not have',
    ]);
  });

  it('refuses the subscriptions table from before tenant routing: it lacks the byTenant index', () => {
    const { GlobalSecondaryIndexes: _, ...before } = createTableInput(TABLES.subscriptions);
    assert.deepEqual(layoutDifferences(described(before), TABLES.subscriptions), [
      'table hookline-subscriptions lacks index byTenant on tenantId, createdAt (sort), INCLUDE',
    ]);
  });

  it('tells a changed table key and a changed projection apart', () => {
    const current = createTableInput(TABLES.attempts);
    const keyedOnId = { ...current, KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' as const }] };
    assert.deepEqual(layoutDifferences(described(keyedOnId), TABLES.attempts), [
      'table hookline-attempts is keyed on id; this version keys it on deliveryId, seq (sort)',
    ]);
    const deliveries = createTableInput(TABLES.deliveries);
    const allActive = {
      ...deliveries,
      GlobalSecondaryIndexes: deliveries.GlobalSecondaryIndexes!.map((i) =>
        i.IndexName === 'active' ? { ...i, Projection: { ProjectionType: 'ALL' as const } } : i,
      ),
    };
    assert.equal(
      layoutDifferences(described(allActive), TABLES.deliveries).length,
      2,
      'the old projection and the new one',
    );
  });

  it('its error says what differs and what to do, for the folder it is about or for an external endpoint', () => {
    const folder = new DataLayoutError(['table x lacks index y'], '/srv/hookline');
    assert.match(
      folder.message,
      /^the tables in \/srv\/hookline were written by another version of Hookline, so nothing was read or changed/,
    );
    assert.match(folder.message, /- table x lacks index y/);
    assert.match(
      folder.message,
      /HOOKLINE_DATA_DIR=\/srv\/hookline-new npm start\), or move this one aside \(mv \/srv\/hookline \/srv\/hookline-old\)/,
    );
    assert.equal(folder.name, 'DataLayoutError');
    const endpoint = new DataLayoutError(['table x lacks index y']);
    assert.match(endpoint.message, /^the tables on this DynamoDB endpoint were written/);
    assert.match(endpoint.message, /another HOOKLINE_RESOURCE_PREFIX/);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  activeShardKey,
  deadLetterShardKey,
  deadLetterShardKeys,
  deliveryKey,
  subscriptionDeadLetterShardKey,
  subscriptionDeadLetterShardKeys,
  subscriptionShardKey,
  subscriptionShardKeys,
} from '#adapters/delivery-keys.ts';
import { deliveryIdFor, deliveryIdParts, idOfListKey, lastListKeyAt } from '#domain/ids.ts';

/** DynamoDB's write limit for one partition, per second (a KEYS_ONLY or ≤ 1 KB entry is 1 WCU). */
const PARTITION_WCU = 1_000;

/** How many of `ids` each key gets. */
function spread(ids: readonly string[], key: (id: string) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(key(id), (counts.get(key(id)) ?? 0) + 1);
  return counts;
}

describe('delivery index keys', () => {
  // One second of the busiest case: 5,000 deliveries a second to one subscription.
  const BUSY = 'sub_busyBusyBusyBusyBusy';
  const SECOND = '2026-12-01T12:00:00.000Z';
  const oneSecond = Array.from({ length: 5_000 }, (_, n) =>
    deliveryIdFor(
      `evt_${n.toString(36).padStart(8, '0')}`,
      BUSY,
      new Date(Date.parse(SECOND) + (n % 1000)).toISOString(),
    ),
  );
  // A first-try delivery's row is written once, with its outcome (1 WCU up to 1 KB); counted twice here, as for a
  // delivery that also waits or retries once.
  const ROW_WRITES = 2;

  it('spreads one subscription at 5,000 deliveries a second over its 16 table partitions, each well under 1,000 writes a second at 2 writes a delivery', () => {
    const counts = spread(oneSecond, (id) => deliveryKey(id)!.subscriptionShard);
    assert.deepEqual(
      [...counts.keys()].sort(),
      [...subscriptionShardKeys(BUSY)].sort(),
      'every shard used, and only the listed ones',
    );
    assert.equal(counts.size, 16);
    const busiest = Math.max(...counts.values()) * ROW_WRITES;
    assert.ok(busiest <= (5_000 / 16) * ROW_WRITES * 1.2, `busiest partition ${busiest} WCU/s, an even share is 625`);
    assert.ok(
      busiest < PARTITION_WCU * 0.8,
      `busiest partition ${busiest} WCU/s leaves headroom under ${PARTITION_WCU}`,
    );
  });

  it('keys a delivery from its id alone, and finds the id again in the key an index entry carries', () => {
    const id = deliveryIdFor('evt_1', 'sub_abc', '2026-12-01T12:00:00.123Z');
    const key = deliveryKey(id)!;
    assert.equal(key.subscriptionShard, subscriptionShardKey('sub_abc', id));
    assert.equal(key.listKey, `2026-12-01T12:00:00.123Z#${id}`);
    assert.equal(idOfListKey(key.listKey), id);
    assert.deepEqual(deliveryIdParts(id), { subscriptionId: 'sub_abc', createdAt: '2026-12-01T12:00:00.123Z' });
    // A range up to a creation time takes in every delivery of that millisecond, and none after it.
    assert.ok(key.listKey <= lastListKeyAt('2026-12-01T12:00:00.123Z'));
    assert.ok(
      deliveryKey(deliveryIdFor('evt_1', 'sub_abc', '2026-12-01T12:00:00.124Z'))!.listKey >
        lastListKeyAt('2026-12-01T12:00:00.123Z'),
    );
  });

  it('has no key for a string that is not a delivery id of this layout (an id of the older layout, or made up)', () => {
    for (const id of ['dlv_eIwYA-SwvYpLhj8OxULglR', 'dlv_', 'sub_abc', '', 'dlv_000000000!!!!!!!!!!!!!abc'])
      assert.equal(deliveryKey(id), undefined, id);
  });

  // A dead-letter entry is the whole row (ALL projection): up to 2 WCU once it holds a response snippet.
  const DEAD_LETTER_WCU = 2;

  it("spreads the same subscription's dead letters at 5,000 a second (its endpoint refusing all) over 16 partitions, each under the limit at 2 WCU each", () => {
    const counts = spread(oneSecond, (id) => subscriptionDeadLetterShardKey(BUSY, id));
    assert.deepEqual([...counts.keys()].sort(), [...subscriptionDeadLetterShardKeys(BUSY)].sort());
    const busiest = Math.max(...counts.values()) * DEAD_LETTER_WCU;
    assert.ok(busiest < PARTITION_WCU * 0.8, `busiest dead-letter partition ${busiest} WCU/s`);
  });

  it('spreads 10,000 dead letters a second overall (a change every receiver refuses) over 32 partitions, each under the limit at 2 WCU each', () => {
    const tenThousand = Array.from({ length: 10_000 }, (_, n) => deliveryIdFor(`evt_${n}`, `sub_${n % 97}`, SECOND));
    const counts = spread(tenThousand, deadLetterShardKey);
    assert.deepEqual([...counts.keys()].sort(), [...deadLetterShardKeys()].sort());
    const busiest = Math.max(...counts.values()) * DEAD_LETTER_WCU;
    assert.ok(busiest < PARTITION_WCU * 0.8, `busiest dead-letter partition ${busiest} WCU/s, an even share is 625`);
  });

  it('spreads live deliveries over the 8 active partitions', () => {
    const counts = spread(oneSecond, activeShardKey);
    assert.equal(counts.size, 8);
    assert.ok(Math.max(...counts.values()) <= (5_000 / 8) * 1.15);
  });

  it('is a function of the ids alone: the same delivery lands in the same shard every time, and in the same shard of both per-subscription indexes', () => {
    const id = oneSecond[42]!;
    assert.equal(subscriptionShardKey(BUSY, id), subscriptionShardKey(BUSY, id));
    assert.match(subscriptionShardKey(BUSY, id), new RegExp(`^${BUSY}#([0-9]|1[0-5])$`));
    assert.match(deadLetterShardKey(id), /^dl#([0-9]|[12][0-9]|3[01])$/);
    assert.match(subscriptionDeadLetterShardKey(BUSY, id), new RegExp(`^${BUSY}#([0-9]|1[0-5])$`));
    assert.match(activeShardKey(id), /^s[0-7]$/);
  });

  it('keeps two subscriptions apart: no partition holds both', () => {
    const other = 'sub_otherOtherOtherOther';
    const a = new Set(oneSecond.map((id) => deliveryKey(id)!.subscriptionShard));
    const b = new Set(oneSecond.map((id) => deliveryKey(deliveryIdFor(id, other, SECOND))!.subscriptionShard));
    assert.ok([...a].every((k) => !b.has(k)));
  });
});

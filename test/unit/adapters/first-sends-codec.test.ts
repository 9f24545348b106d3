import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFirstSends, encodeFirstSends } from '#adapters/first-sends-codec.ts';
import type { FirstSend } from '#domain/types.ts';

const ids = Array.from({ length: 10 }, (_, i) => `sub_${String(i).padStart(22, 'A')}`);
const roundTrip = (firstSends: Record<string, FirstSend> | undefined, subscriptionIds = ids) => {
  const encoded = encodeFirstSends({ subscriptionIds, ...(firstSends ? { firstSends } : {}) });
  return { encoded, decoded: decodeFirstSends(encoded, subscriptionIds) };
};

describe('the event row’s firstSends, compact', () => {
  it('writes nothing when every subscription takes the defaults', () => {
    assert.deepEqual(roundTrip(undefined), { encoded: undefined, decoded: undefined });
    assert.deepEqual(roundTrip({}), { encoded: undefined, decoded: undefined });
  });

  it('writes one entry for all when every subscription differs alike (one policy): a few bytes for ten', () => {
    const all = Object.fromEntries(ids.map((id) => [id, { deadlineSeconds: 60 }]));
    const { encoded, decoded } = roundTrip(all);
    assert.equal(encoded, '*:60');
    assert.deepEqual(decoded, all);
    assert.ok(JSON.stringify(all).length > 400, 'the map as it is would take hundreds of bytes');
  });

  it('writes each that differs by its place, with its deadline and its travelling alone', () => {
    const some = {
      [ids[1]!]: { deadlineSeconds: 3600 },
      [ids[4]!]: { alone: true as const },
      [ids[9]!]: { deadlineSeconds: 60, alone: true as const },
    };
    const { encoded, decoded } = roundTrip(some);
    assert.equal(encoded, '1:3600;4::a;9:60:a');
    assert.deepEqual(decoded, some);
  });

  it('ignores a place past the subscriptions (a row cut short by hand), not crashing a read', () => {
    assert.deepEqual(decodeFirstSends('0:60;12:30', ids.slice(0, 2)), { [ids[0]!]: { deadlineSeconds: 60 } });
  });
});

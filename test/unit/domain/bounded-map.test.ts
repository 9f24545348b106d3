import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setBounded } from '#domain/bounded-map.ts';

describe('setBounded', () => {
  it('keeps at most max entries, dropping the oldest first; setting a key again makes it the newest', () => {
    const map = new Map<string, number>();
    for (const [k, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      setBounded(map, k, v, 3);
    setBounded(map, 'a', 10, 3);
    setBounded(map, 'd', 4, 3);
    assert.deepEqual(
      [...map],
      [
        ['c', 3],
        ['a', 10],
        ['d', 4],
      ],
    );
    setBounded(map, 'e', 5, 1);
    assert.deepEqual([...map], [['e', 5]]);
  });
});

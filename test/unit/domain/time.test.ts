import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { iso } from '#domain/time.ts';

describe('iso', () => {
  it('formats every instant exactly, also those sharing a memo slot, interleaved and repeated', () => {
    const base = Date.parse('2026-12-01T12:00:00.000Z');
    // 0, 8 and 16 ms apart share a slot; 1 and 9 share the next; each is asked again after the others.
    const order = [0, 8, 0, 16, 1, 9, 1, 8, -8, 0, 2 ** 33];
    for (const d of order) assert.equal(iso(base + d), new Date(base + d).toISOString(), `+${d} ms`);
    assert.equal(iso(0), '1970-01-01T00:00:00.000Z');
  });

  it('refuses what is no time, as Date does', () => {
    assert.throws(() => iso(Number.NaN), RangeError);
  });
});

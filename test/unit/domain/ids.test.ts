import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryIdFor, formatId, type IdPrefix } from '#domain/ids.ts';

describe('formatId()', () => {
  // [prefix, bytes, id]
  const table: ReadonlyArray<readonly [IdPrefix, readonly number[], string]> = [
    ['evt', [0, 1, 2], 'evt_AAEC'],
    ['dlv', [0xfb, 0xff], 'dlv_-_8'],
    ['sub', [0xff, 0xff, 0xff], 'sub_____'],
    ['rpl', [0x68, 0x6f, 0x6f, 0x6b], 'rpl_aG9vaw'],
    ['evt', new Array<number>(16).fill(0), 'evt_AAAAAAAAAAAAAAAAAAAAAA'],
  ];
  for (const [prefix, bytes, id] of table) {
    it(`${prefix} + [${bytes.join(',')}] -> ${id}`, () => assert.equal(formatId(prefix, Uint8Array.from(bytes)), id));
  }

  it('is URL-safe: no +, / or = padding', () => {
    for (let i = 0; i < 64; i++) {
      const id = formatId('sub', Uint8Array.from({ length: 16 }, (_, j) => (i * 37 + j * 101) & 0xff));
      assert.match(id, /^sub_[A-Za-z0-9_-]{22}$/);
    }
  });
});

describe('deliveryIdFor()', () => {
  it('is deterministic for the same (event, subscription)', () => {
    const first = deliveryIdFor('evt_abc', 'sub_123');
    for (let i = 0; i < 5; i++) assert.equal(deliveryIdFor('evt_abc', 'sub_123'), first);
  });

  it('is dlv_ + 22 base64url characters', () => {
    const id = deliveryIdFor('evt_abc', 'sub_123');
    assert.match(id, /^dlv_[A-Za-z0-9_-]{22}$/);
    assert.equal(id.length, 26);
  });

  // Pinned values: a change here would re-create deliveries for events ingested before the change.
  it('is the first 22 base64url characters of SHA-256("event\\0subscription")', () => {
    assert.equal(deliveryIdFor('evt_abc', 'sub_123'), 'dlv_eIwYA-SwvYpLhj8OxULglR');
    assert.equal(deliveryIdFor('', ''), 'dlv_bjQLnP-zepicpUTmu3gKLH');
  });

  const distinct: ReadonlyArray<readonly [string, string, string, string]> = [
    ['evt_1', 'sub_1', 'evt_1', 'sub_2'],
    ['evt_1', 'sub_1', 'evt_2', 'sub_1'],
    ['evt_1', 'sub_2', 'evt_2', 'sub_1'],
    ['a', 'bc', 'ab', 'c'], // the separator keeps the pair unambiguous
    ['evt_1', 'sub_1', 'sub_1', 'evt_1'],
  ];
  for (const [e1, s1, e2, s2] of distinct) {
    it(`(${e1}, ${s1}) and (${e2}, ${s2}) get different ids`, () => {
      assert.notEqual(deliveryIdFor(e1, s1), deliveryIdFor(e2, s2));
    });
  }

  it('no collisions over a fan-out of 100 events x 50 subscriptions', () => {
    const ids = new Set<string>();
    for (let e = 0; e < 100; e++) for (let s = 0; s < 50; s++) ids.add(deliveryIdFor(`evt_${e}`, `sub_${s}`));
    assert.equal(ids.size, 5000);
    for (const id of ids) assert.match(id, /^dlv_[A-Za-z0-9_-]{22}$/);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryIdFor, deliveryIdParts, formatId, isDeliveryOf, type IdPrefix } from '#domain/ids.ts';

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
      const id = formatId(
        'sub',
        Uint8Array.from({ length: 16 }, (_, j) => (i * 37 + j * 101) & 0xff),
      );
      assert.match(id, /^sub_[A-Za-z0-9_-]{22}$/);
    }
  });
});

const AT = '2026-12-01T12:00:00.000Z';

describe('deliveryIdFor()', () => {
  it('is deterministic for the same (event, subscription, creation time)', () => {
    const first = deliveryIdFor('evt_abc', 'sub_123', AT);
    for (let i = 0; i < 5; i++) assert.equal(deliveryIdFor('evt_abc', 'sub_123', AT), first);
  });

  it('is dlv_ + 9 base36 time digits + 13 digest characters + the subscription id after sub_, within the id length the API takes', () => {
    const id = deliveryIdFor('evt_abc', 'sub_AAAAAAAAAAAAAAAA', AT);
    assert.match(id, /^dlv_[0-9a-z]{9}[A-Za-z0-9_-]{13}AAAAAAAAAAAAAAAA$/);
    assert.ok(id.length - 'dlv_'.length <= 64, `${id.length - 4} characters after dlv_`);
  });

  // Pinned values: a change here would re-create deliveries for events ingested before the change.
  it('is the creation time in ms, base 36, then the first 13 base64url characters of SHA-256("event\\0subscription"), then the subscription', () => {
    assert.equal(Date.parse(AT).toString(36).padStart(9, '0'), '0mx4na800');
    assert.equal(deliveryIdFor('evt_abc', 'sub_123', AT), 'dlv_0mx4na800eIwYA-SwvYpLh123');
  });

  it('gives back its subscription and creation time', () => {
    assert.deepEqual(deliveryIdParts(deliveryIdFor('evt_abc', 'sub_a-b_c', '2024-02-29T23:59:59.999Z')), {
      subscriptionId: 'sub_a-b_c',
      createdAt: '2024-02-29T23:59:59.999Z',
    });
    assert.deepEqual(deliveryIdParts(deliveryIdFor('e', 'sub_x', '1970-01-01T00:00:00.000Z')), {
      subscriptionId: 'sub_x',
      createdAt: '1970-01-01T00:00:00.000Z',
    });
  });

  it('sorts by creation time', () => {
    const times = [
      '2026-12-01T12:00:00.000Z',
      '2026-12-01T12:00:00.001Z',
      '2026-12-02T00:00:00.000Z',
      '2031-01-01T00:00:00.000Z',
    ];
    const ids = times.map((t, i) => deliveryIdFor(`evt_${9 - i}`, 'sub_a', t));
    assert.deepEqual([...ids].sort(), ids);
  });

  it('refuses a subscription id without its prefix and a creation time that is not an instant', () => {
    assert.throws(() => deliveryIdFor('evt_1', 'abc', AT), /starts with sub_/);
    assert.throws(() => deliveryIdFor('evt_1', 'sub_a', 'yesterday'), /ISO 8601/);
  });

  it('tells a delivery of a subscription from one of another whose id ends the same', () => {
    const id = deliveryIdFor('evt_1', 'sub_abc', AT);
    assert.equal(isDeliveryOf(id, 'sub_abc'), true);
    assert.equal(isDeliveryOf(id, 'sub_bc'), false, 'a suffix of the subscription is another subscription');
    assert.equal(isDeliveryOf(deliveryIdFor('evt_1', 'sub_xabc', AT), 'sub_abc'), false);
    assert.equal(isDeliveryOf('dlv_made_up_abc', 'sub_abc'), false);
  });

  it('is no id of a string made up or of the older layout', () => {
    for (const id of [
      'dlv_eIwYA-SwvYpLhj8OxULglR',
      'dlv_0mx4na800eIwYA-SwvYpLh',
      'evt_0mx4na800eIwYA-SwvYpLh123',
      'dlv_0MX4NA800eIwYA-SwvYpLh123',
      '',
    ])
      assert.equal(deliveryIdParts(id), undefined, id);
  });

  const distinct: ReadonlyArray<readonly [string, string, string, string]> = [
    ['evt_1', 'sub_1', 'evt_1', 'sub_2'],
    ['evt_1', 'sub_1', 'evt_2', 'sub_1'],
    ['evt_1', 'sub_2', 'evt_2', 'sub_1'],
    ['a', 'sub_bc', 'ab', 'sub_c'], // the separator keeps the pair unambiguous
  ];
  for (const [e1, s1, e2, s2] of distinct) {
    it(`(${e1}, ${s1}) and (${e2}, ${s2}) get different ids`, () => {
      assert.notEqual(deliveryIdFor(e1, s1, AT), deliveryIdFor(e2, s2, AT));
    });
  }

  it('no collisions over a fan-out of 100 events x 50 subscriptions in one millisecond', () => {
    const ids = new Set<string>();
    for (let e = 0; e < 100; e++) for (let s = 0; s < 50; s++) ids.add(deliveryIdFor(`evt_${e}`, `sub_${s}`, AT));
    assert.equal(ids.size, 5000);
    for (const id of ids) assert.match(id, /^dlv_[0-9a-z]{9}[A-Za-z0-9_-]{13}[0-9]{1,2}$/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemBytes } from '#domain/item-size.ts';

describe("itemBytes: an item's size as DynamoDB counts it", () => {
  it('names plus values: strings by their UTF-8 bytes, booleans and null one byte', () => {
    assert.equal(itemBytes({ id: 'abc' }), 2 + 3);
    assert.equal(itemBytes({ s: 'é€' }), 1 + 2 + 3, 'two- and three-byte characters');
    assert.equal(itemBytes({ ok: true, no: null }), 2 + 1 + 2 + 1);
  });

  it('a number one byte per two significant digits, plus one; leading and trailing zeros trimmed', () => {
    assert.equal(itemBytes({ n: 7 }), 1 + 2);
    assert.equal(itemBytes({ n: 1234 }), 1 + 3);
    assert.equal(itemBytes({ n: 12345 }), 1 + 4);
    assert.equal(itemBytes({ n: 1200 }), 1 + 2);
    assert.equal(itemBytes({ n: 0.012 }), 1 + 2);
    assert.equal(itemBytes({ n: -1799212026 }), 1 + 6);
  });

  it('a list or map 3 bytes plus one per element, a map its names too; undefined is no attribute', () => {
    assert.equal(itemBytes({ l: ['ab', 'c'] }), 1 + 3 + (2 + 1) + (1 + 1));
    assert.equal(itemBytes({ m: { a: 'xy', gone: undefined } }), 1 + 3 + 1 + (1 + 2));
    assert.equal(itemBytes({ gone: undefined }), 0);
  });

  it('binary by its bytes, a set by its members', () => {
    assert.equal(itemBytes({ b: new Uint8Array(10) }), 1 + 10);
    assert.equal(itemBytes({ ss: new Set(['ab', 'cde']) }), 2 + 5);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, InvalidCursorError } from '#ports/page.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const isInvalidCursor = (e: unknown) =>
  e instanceof InvalidCursorError && e.name === 'InvalidCursorError' && /cursor is not valid/.test(e.message);

describe('encodeCursor / decodeCursor', () => {
  it('round-trips a DynamoDB key', () => {
    const key = { id: 'dlv_x1', subscriptionId: 'sub_1', createdAt: '2024-05-01T12:00:00.000Z' };

    const cursor = encodeCursor(key);

    assert.equal(typeof cursor, 'string');
    assert.match(cursor!, /^[A-Za-z0-9_-]+$/, 'base64url: no + / or = padding');
    assert.deepEqual(decodeCursor(cursor), key);
  });

  it('round-trips adapter state with one nested key object and numbers', () => {
    const state = { day: '2024-05-01', key: { id: 'dlv_x1', dlDay: '2024-05-01', seq: 3 } };

    assert.deepEqual(decodeCursor(encodeCursor(state)), state);
  });

  it('encodes undefined as no cursor and decodes no cursor as undefined', () => {
    assert.equal(encodeCursor(undefined), undefined);
    assert.equal(decodeCursor(undefined), undefined);
    assert.equal(decodeCursor(''), undefined);
  });

  const tampered: ReadonlyArray<readonly [string, string]> = [
    ['a flipped first character', `f${b64({ id: 'dlv_x1' }).slice(1)}`],
    ['a truncated cursor', b64({ id: 'dlv_x1', createdAt: '2024-05-01T12:00:00.000Z' }).slice(0, -4)],
    ['base64url of something that is not JSON', Buffer.from('id=dlv_x1').toString('base64url')],
  ];
  const notBase64url: ReadonlyArray<readonly [string, string]> = [
    ['standard base64 with +', 'ab+cd'],
    ['standard base64 with /', 'ab/cd'],
    ['padding', `${Buffer.from('{"id":"a"}').toString('base64')}`],
    ['a space', 'eyJpZCI6 ImEifQ'],
    ['punctuation', 'garbage!!'],
    ['percent-encoding', 'eyJ%3D'],
  ];
  const notAnObject: ReadonlyArray<readonly [string, unknown]> = [
    ['a string', 'dlv_x1'],
    ['a number', 42],
    ['null', null],
    ['a boolean', true],
    ['an array', [1, 2]],
  ];
  const badShapes: ReadonlyArray<readonly [string, unknown]> = [
    ['an object two levels deep', { id: { nested: { deep: 1 } } }],
    ['a typed DynamoDB attribute map', { key: { id: { S: 'dlv_x1' } } }],
    ['a null inside a key', { key: { id: null } }],
    ['a boolean field', { id: 'dlv_x1', done: true }],
    ['a boolean inside a key', { key: { id: false } }],
    ['an array inside a key', { key: { id: ['a'] } }],
  ];

  for (const [label, cursor] of [...tampered, ...notBase64url]) {
    it(`rejects ${label}`, () => {
      assert.throws(() => decodeCursor(cursor), isInvalidCursor);
    });
  }
  for (const [label, value] of [...notAnObject, ...badShapes]) {
    it(`rejects a cursor that is ${label}`, () => {
      assert.throws(() => decodeCursor(b64(value)), isInvalidCursor);
    });
  }

  it('keeps what went wrong as the cause', () => {
    const error = (() => {
      try {
        decodeCursor(b64([1]));
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof InvalidCursorError);
    assert.ok(error.cause instanceof Error);
    assert.match((error.cause as Error).message, /not an object/);
  });

  it('accepts a cursor of exactly 2048 characters and rejects one longer', () => {
    // {"id":"xx…"} is 9 + n bytes; 1536 bytes encode to exactly 2048 base64url characters.
    const atLimit = encodeCursor({ id: 'x'.repeat(1527) })!;
    const overLimit = encodeCursor({ id: 'x'.repeat(1528) })!;

    assert.equal(atLimit.length, 2048);
    assert.equal(overLimit.length, 2050);
    assert.deepEqual(decodeCursor(atLimit), { id: 'x'.repeat(1527) });
    assert.throws(() => decodeCursor(overLimit), isInvalidCursor);
  });

  it('rejects an oversized cursor even when it is valid JSON', () => {
    const huge = encodeCursor({ id: 'dlv_x1', padding: 'p'.repeat(10_000) })!;

    assert.throws(() => decodeCursor(huge), isInvalidCursor);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  attemptLog,
  hasLoggedAttempts,
  placeReplaced,
  ROW_BOOKKEEPING_BYTES,
  ROW_WRITE_UNIT_BYTES,
} from '#domain/attempt-log.ts';
import { itemBytes } from '#domain/item-size.ts';
import { RESPONSE_SNIPPET_BYTES, type Delivery, type InlineAttempt } from '#domain/types.ts';

const attempt = (seq: number): InlineAttempt => ({
  seq,
  attempt: seq,
  startedAt: '2024-05-01T12:00:00.000Z',
  durationMs: 5,
});

describe('hasLoggedAttempts: whether a delivery has attempts off its row', () => {
  it('none when each attempt it made is on its row', () => {
    assert.equal(hasLoggedAttempts({ attemptSeq: 0 }), false, 'not attempted');
    assert.equal(hasLoggedAttempts({ attemptSeq: 1, lastAttempt: attempt(1) }), false, 'attempted once');
    assert.equal(
      hasLoggedAttempts({ attemptSeq: 2, firstAttempt: attempt(1), lastAttempt: attempt(2) }),
      false,
      'an earlier version held the first inline too',
    );
  });

  it('some once an attempt was replaced on its row, or when the row holds none (an earlier version logged every one)', () => {
    assert.equal(hasLoggedAttempts({ attemptSeq: 2, lastAttempt: attempt(2) }), true);
    assert.equal(hasLoggedAttempts({ attemptSeq: 1 }), true);
    assert.equal(hasLoggedAttempts({ attemptSeq: 3, firstAttempt: attempt(1), lastAttempt: attempt(3) }), true);
  });
});

describe('hasLoggedAttempts with earlier attempts on the row', () => {
  it('none while every attempt is on the row; some once one is not', () => {
    assert.equal(
      hasLoggedAttempts({ attemptSeq: 3, earlierAttempts: [attempt(1), attempt(2)], lastAttempt: attempt(3) }),
      false,
    );
    assert.equal(hasLoggedAttempts({ attemptSeq: 4, earlierAttempts: [attempt(1)], lastAttempt: attempt(4) }), true);
  });
});

describe('attemptLog: the table and what the row holds, oldest first, each attempt once', () => {
  it('merges the older inline attempts, the table and the latest; the table wins on a duplicate', () => {
    const stored = [3, 4].map((seq) => ({ deliveryId: 'dlv_1', ...attempt(seq), error: 'from the table' }));
    const log = attemptLog(
      {
        id: 'dlv_1',
        earlierAttempts: [attempt(1), attempt(2), { ...attempt(3), error: 'inline' }],
        lastAttempt: attempt(5),
      },
      stored,
    );
    assert.deepEqual(
      log.map((a) => [a.seq, a.error ?? null]),
      [
        [1, null],
        [2, null],
        [3, 'from the table'],
        [4, 'from the table'],
        [5, null],
      ],
    );
  });
});

describe('placeReplaced: where the attempt a new one replaces goes', () => {
  const base: Delivery = {
    id: 'dlv_1',
    eventId: 'evt_1',
    subscriptionId: 'sub_1',
    url: 'https://hooks.example.com/in',
    state: 'pending',
    attempts: 2,
    attemptSeq: 2,
    nextAttemptAt: '2024-05-01T12:00:00.000Z',
    giveUpAt: '2024-05-04T12:00:00.000Z',
    headers: { 'content-type': 'application/json' },
    createdAt: '2024-05-01T12:00:00.000Z',
    updatedAt: '2024-05-01T12:00:00.000Z',
  };
  const row = { ...base, earlierAttempts: [attempt(1)], lastAttempt: attempt(2) };
  const next = { ...row, attempts: 3, attemptSeq: 3, lastAttempt: attempt(3) };

  it('onto the row while the row as written stays within one write unit', () => {
    const placed = placeReplaced(row, next);
    assert.deepEqual(placed, { row: { ...next, earlierAttempts: [attempt(1), attempt(2)] } });
    assert.ok(itemBytes(placed.row) + ROW_BOOKKEEPING_BYTES <= ROW_WRITE_UNIT_BYTES, 'the row it leaves fits');
  });

  it('to the table when the row would pass it, the list left as it was', () => {
    const big = { ...next, lastAttempt: { ...attempt(3), responseSnippet: 'x'.repeat(RESPONSE_SNIPPET_BYTES) } };
    assert.deepEqual(placeReplaced(row, big), { row: big, logged: attempt(2) });
  });

  it('the size counted is the row as written: a read-back lastResponse is not stored, so it does not count', () => {
    const withReadBack = { ...next, lastResponse: 'x'.repeat(ROW_WRITE_UNIT_BYTES) };
    assert.deepEqual(placeReplaced(row, withReadBack).logged, undefined);
  });

  it('to the table once any attempt is there (the row keeps only the oldest), and for an earlier version’s rows', () => {
    const spilled = { ...row, attemptSeq: 3, lastAttempt: attempt(3) };
    const fourth = { ...next, attemptSeq: 4, lastAttempt: attempt(4) };
    assert.deepEqual(placeReplaced(spilled, fourth), { row: fourth, logged: attempt(3) });
    const legacy = { ...base, firstAttempt: attempt(1), lastAttempt: attempt(2) };
    const { earlierAttempts: _e, ...plain } = next;
    assert.deepEqual(placeReplaced(legacy, plain), { row: plain, logged: attempt(2) });
  });

  it('nothing to place on a row without a latest attempt', () => {
    assert.deepEqual(placeReplaced({ ...base, attemptSeq: 0 }, next), { row: next });
  });
});

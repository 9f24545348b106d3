import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { relativeTime } from '../../../dashboard/src/relative-time.ts';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => relativeTime(new Date(NOW - ms).toISOString(), NOW);

describe('relativeTime', () => {
  it('says how long ago, in the largest whole unit passed', () => {
    const table: ReadonlyArray<readonly [number, string]> = [
      [0, 'just now'],
      [9_999, 'just now'],
      [10 * SECOND, '10 s ago'],
      [59 * SECOND + 999, '59 s ago'],
      [MINUTE, '1 min ago'],
      [3 * MINUTE + 59 * SECOND, '3 min ago'],
      [59 * MINUTE, '59 min ago'],
      [HOUR, '1 h ago'],
      [23 * HOUR + 59 * MINUTE, '23 h ago'],
      [DAY, '1 day ago'],
      [6 * DAY + 23 * HOUR, '6 days ago'],
      [29 * DAY, '29 days ago'],
      [31 * DAY, '1 month ago'],
      [100 * DAY, '3 months ago'],
      [364 * DAY, '11 months ago'],
      [366 * DAY, '1 year ago'],
      [3 * 366 * DAY, '3 years ago'],
    ];
    for (const [ms, said] of table) assert.equal(ago(ms), said, `${ms} ms ago`);
  });

  it('says how soon for a time to come, and a few seconds either way is just now (clock skew)', () => {
    assert.equal(ago(-3 * MINUTE), 'in 3 min');
    assert.equal(ago(-2 * DAY), 'in 2 days');
    assert.equal(ago(-5 * SECOND), 'just now');
    assert.equal(ago(-45 * SECOND), 'in 45 s');
  });

  it('reads any ISO 8601 time with a zone, and answers undefined for a string that is no time', () => {
    assert.equal(relativeTime('2024-05-01T13:57:00+02:00', NOW), '3 min ago');
    assert.equal(relativeTime('not a time', NOW), undefined);
    assert.equal(relativeTime('', NOW), undefined);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReadPace } from '#app/read-pace.ts';
import { FakeClock } from '#test/fakes.ts';

describe('ReadPace', () => {
  it('lets the first read go at once and spaces the next ones by the rows before them', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const pace = new ReadPace(clock, 16_000);
    const startedAt: number[] = [];
    for (const rows of [8_000, 8_000, 1_000]) {
      await pace.take(rows);
      startedAt.push(clock.now() - start);
    }
    assert.deepEqual(startedAt, [0, 500, 1_000]);
  });

  it('is shared: readers side by side each wait their turn, together under the rate', async () => {
    // A clock that stands still and records the waits: the four readers ask at the same instant.
    const waits: number[] = [];
    const pace = new ReadPace({ now: () => 0, sleep: async (ms) => void waits.push(ms) }, 1_000);
    await Promise.all(Array.from({ length: 4 }, () => pace.take(500)));
    assert.deepEqual(
      waits.sort((a, b) => a - b),
      [500, 1_000, 1_500],
      '2,000 rows at 1,000 a second: the first at once',
    );
  });

  it('does not bank time a reader left unused: after a quiet spell the rate holds from then', async () => {
    const clock = new FakeClock();
    const pace = new ReadPace(clock, 1_000);
    await pace.take(1_000);
    clock.advance(10_000);
    const quietEnd = clock.now();
    await pace.take(1_000);
    await pace.take(1_000);
    assert.equal(clock.now() - quietEnd, 1_000, 'the second read after the pause waits its full second');
  });
});

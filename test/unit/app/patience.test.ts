import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { patiently, REFUSED_WRITE_PAUSES_MS } from '#app/patience.ts';
import { FakeClock } from '#test/fakes.ts';

describe('patiently', () => {
  it('tries again after each pause while the write throws, and answers what the write finally did', async () => {
    const clock = new FakeClock(0);
    let tries = 0;
    const answer = await patiently(clock, async () => {
      if (++tries < 3) throw new Error('throttled');
      return 'written';
    });
    assert.equal(answer, 'written');
    assert.equal(tries, 3);
    assert.equal(clock.now(), REFUSED_WRITE_PAUSES_MS[0] + REFUSED_WRITE_PAUSES_MS[1]);
  });

  it('gives up after the last pause with the last error; an answer, even false, is never tried again', async () => {
    const clock = new FakeClock(0);
    let tries = 0;
    await assert.rejects(
      patiently(clock, async () => {
        throw new Error(`refused ${++tries}`);
      }),
      /refused 4/,
    );
    assert.equal(clock.now(), 3500);
    let asked = 0;
    assert.equal(await patiently(clock, async () => (asked++, false)), false);
    assert.equal(asked, 1);
  });

  it('does not pause past the deadline: the error is handed back instead', async () => {
    const clock = new FakeClock(0);
    let tries = 0;
    await assert.rejects(
      patiently(
        clock,
        async () => {
          throw new Error(`refused ${++tries}`);
        },
        1200,
      ),
      /refused 2/,
    );
    assert.equal(clock.now(), 500, 'paused 0.5 s; the 1 s pause would have reached the deadline');
  });
});

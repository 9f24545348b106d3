import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duplicateCauses, KILL_RACE_MS, type Answer } from '../../../scripts/chaos/duplicates.ts';

const answer = (arrivedAt: number, answeredAt = arrivedAt): Answer => ({ arrivedAt, answeredAt });
/** The counts alone (the samples have a test of their own). */
const causes = (answers: Record<string, Answer[]>, kills: number[]) => {
  const { unexplainedSamples: _, ...counts } = duplicateCauses(new Map(Object.entries(answers)), kills, 1000);
  return counts;
};

describe('chaos duplicates by cause', () => {
  it('counts nothing for endpoints answered once', () => {
    assert.deepEqual(causes({ a: [answer(100)], b: [answer(200)] }, [150]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 0,
      unexplained: 0,
    });
  });

  it('charges a repeat to a kill up to the record window after the answer, and to nothing beyond it', () => {
    assert.deepEqual(causes({ a: [answer(1000), answer(9000)] }, [1080]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 1,
      unexplained: 0,
    });
    assert.deepEqual(causes({ a: [answer(1000), answer(9000)] }, [2000]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 1,
      unexplained: 0,
    });
    assert.deepEqual(causes({ a: [answer(1000), answer(9000)] }, [2001]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 0,
      unexplained: 1,
    });
    // A kill well before the request arrived has nothing to do with it; one just before is the kill it raced (the harness read the request late).
    assert.deepEqual(causes({ a: [answer(1000), answer(9000)] }, [1000 - KILL_RACE_MS - 1]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 0,
      unexplained: 1,
    });
    assert.deepEqual(causes({ a: [answer(1000), answer(9000)] }, [1000 - KILL_RACE_MS]), {
      answeredAfterKill: 1,
      killedBeforeRecord: 0,
      unexplained: 0,
    });
  });

  it('tells a slow answer given after the kill (to a client that was gone) from one killed before its record', () => {
    assert.deepEqual(causes({ a: [answer(1000, 1400), answer(9000)] }, [1200]), {
      answeredAfterKill: 1,
      killedBeforeRecord: 0,
      unexplained: 0,
    });
  });

  it('judges every answer that was followed by another, in the order they were given', () => {
    // Three answers: the first two each caused a repeat; given out of order, they are sorted by answer time.
    const three = [answer(20_000), answer(1000), answer(10_000)];
    assert.deepEqual(causes({ a: three }, [1050]), { answeredAfterKill: 0, killedBeforeRecord: 1, unexplained: 1 });
    assert.deepEqual(causes({ a: three }, [1050, 10_300]), {
      answeredAfterKill: 0,
      killedBeforeRecord: 2,
      unexplained: 0,
    });
  });

  it('describes each unexplained one with its timing and the nearest kill', () => {
    const { unexplainedSamples } = duplicateCauses(
      new Map([['/e chaos-1', [answer(1000, 1300), answer(15_000)]]]),
      [5000, 30_000],
      1000,
      (key) => `${key} (dlv_1)`,
    );
    assert.deepEqual(unexplainedSamples, [
      '/e chaos-1 (dlv_1): answered at 1970-01-01T00:00:01.300Z, 300 ms after it arrived, again 13700 ms later; nearest kill 3700 ms after the answer',
    ]);
    assert.deepEqual(duplicateCauses(new Map([['k', [answer(1), answer(2)]]]), [], 1000).unexplainedSamples, [
      'k: answered at 1970-01-01T00:00:00.001Z, 0 ms after it arrived, again 1 ms later; no kill',
    ]);
  });
});

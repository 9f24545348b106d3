import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admits,
  countLead,
  earliestTurn,
  maxInAnySecond,
  mostInAnySecond,
  quotaAt,
  sendWindowAt,
  subWindowsPerSecond,
  turnWindow,
} from '#domain/send-rate.ts';

const LIMITS = [1, 2, 3, 7, 9, 10, 11, 15, 19, 20, 25, 99, 100, 101, 999, 1000, 9973, 10_000];
const T0 = Date.parse('2025-03-01T12:00:00.000Z');

/** The gate's rule on its own: each attempt counted in its sub-window, admitted while within the quota. */
function admitted(limit: number, times: readonly number[]): number[] {
  const counts = new Map<number, number>();
  return times.filter((t) => {
    const w = sendWindowAt(limit, t);
    const count = (counts.get(w.index) ?? 0) + 1;
    counts.set(w.index, count);
    return admits(w, count);
  });
}

/** The most timestamps in any half-open 1 s window [a, a + 1000). */
function maxInOneSecond(sorted: readonly number[]): number {
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('send rate windows', () => {
  it('promises L + ceil(L/10) in any second (22 at 20/s)', () => {
    assert.equal(maxInAnySecond(20), 22);
    for (const limit of LIMITS) assert.equal(maxInAnySecond(limit), limit + Math.ceil(limit / 10), `L=${limit}`);
  });

  it('cuts each second into min(L, 10) sub-windows whose quotas add up to exactly L, none above ceil(L/10)', () => {
    for (const limit of LIMITS) {
      const perSecond = subWindowsPerSecond(limit);
      assert.equal(perSecond, Math.min(limit, 10));
      const quotas = Array.from({ length: perSecond }, (_, slot) => quotaAt(limit, slot));
      assert.equal(
        quotas.reduce((a, b) => a + b, 0),
        limit,
        `L=${limit}: ${quotas.join(',')}`,
      );
      assert.ok(Math.max(...quotas) <= Math.ceil(limit / 10), `L=${limit}`);
      assert.ok(Math.min(...quotas) >= 1, `L=${limit}`);
    }
  });

  it('aligns sub-windows to whole seconds: a second starts at slot 0, and 20/s is 100 ms sub-windows of 2', () => {
    const w = sendWindowAt(20, T0 + 1234);
    assert.deepEqual(w, {
      limit: 20,
      index: (T0 + 1200) / 100,
      second: (T0 + 1000) / 1000,
      slot: 2,
      quota: 2,
      startsAtMs: T0 + 1200,
      endsAtMs: T0 + 1300,
    });
    assert.equal(sendWindowAt(20, T0 + 1999.9).slot, 9);
    assert.equal(sendWindowAt(20, T0 + 2000).slot, 0);
    // 3/s: thirds of a second, boundaries exact despite 333.3 ms sub-windows.
    assert.deepEqual(
      [0, 333, 334, 666, 667, 999, 1000].map((ms) => sendWindowAt(3, T0 + ms).slot),
      [0, 0, 1, 1, 2, 2, 0],
    );
  });

  for (const limit of LIMITS) {
    it(`L=${limit}: never more than L + ceil(L/10) in any sliding second, and L in each whole second under load`, () => {
      const random = lcg(limit);
      const seconds = limit > 1000 ? 3 : 6;
      // Far more demand than the limit, at random instants (several per ms at the highest limits).
      const times = Array.from(
        { length: Math.max(limit, 50) * 4 * seconds },
        () => T0 + Math.floor(random() * seconds * 1000 * 100) / 100,
      ).sort((a, b) => a - b);
      const sent = admitted(limit, times);
      assert.ok(maxInOneSecond(sent) <= maxInAnySecond(limit), `L=${limit}: ${maxInOneSecond(sent)} in one second`);
      for (let s = 1; s < seconds - 1; s++) {
        const inSecond = sent.filter((t) => t >= T0 + s * 1000 && t < T0 + (s + 1) * 1000).length;
        assert.equal(inSecond, limit, `L=${limit}: second ${s} sent ${inSecond}`);
      }
    });
  }

  it('meets the bound exactly for the worst case: a sub-window used at its very end, the next second at its start', () => {
    for (const limit of [1, 7, 20, 25, 10_000]) {
      const perSecond = subWindowsPerSecond(limit);
      const lastMsOfFirst = Math.ceil(1000 / perSecond) - 1;
      // The whole quota of slot 0 in its last ms, then every later sub-window from its first ms, for a second.
      const times = [
        ...Array<number>(quotaAt(limit, 0)).fill(T0 + Math.floor(lastMsOfFirst)),
        ...Array.from({ length: perSecond }, (_, k) =>
          Array<number>(quotaAt(limit, (k + 1) % perSecond)).fill(T0 + Math.ceil(((k + 1) * 1000) / perSecond)),
        ).flat(),
      ];
      const sent = admitted(limit, times);
      assert.equal(sent.length, times.length, `L=${limit}: all within their quotas`);
      assert.equal(maxInOneSecond(sent), maxInAnySecond(limit), `L=${limit}`);
    }
  });
});

describe('send rate turns', () => {
  it('starts a held-back delivery no sooner than the next sub-window, and names the sub-window of each turn', () => {
    const w = sendWindowAt(20, T0 + 340); // slot 3 of second T0: places 6 and 7 of its second
    const second = T0 / 1000;
    assert.equal(earliestTurn(w), second * 20 + 8, 'the first place of slot 4');
    assert.equal(turnWindow(20, earliestTurn(w)).startsAtMs, T0 + 400);
    assert.equal(turnWindow(20, earliestTurn(w) + 1).startsAtMs, T0 + 400, 'the second place of the same sub-window');
    assert.equal(turnWindow(20, earliestTurn(w) + 2).startsAtMs, T0 + 500);
    assert.equal(turnWindow(20, (second + 1) * 20).startsAtMs, T0 + 1000, 'the next second, from its first sub-window');
    const last = sendWindowAt(20, T0 + 950);
    assert.equal(turnWindow(20, earliestTurn(last)).startsAtMs, T0 + 1000, 'after the last slot: the next second');
  });

  it('gives every sub-window exactly its quota of turns, for every limit', () => {
    for (const limit of LIMITS) {
      const perWindow = new Map<number, number>();
      const from = (T0 / 1000) * limit;
      for (let turn = from; turn < from + 3 * limit; turn++) {
        const w = turnWindow(limit, turn);
        perWindow.set(w.index, (perWindow.get(w.index) ?? 0) + 1);
      }
      assert.equal(perWindow.size, 3 * subWindowsPerSecond(limit), `L=${limit}: every sub-window of 3 s has turns`);
      for (const [index, n] of perWindow)
        assert.equal(
          n,
          sendWindowAt(limit, Math.ceil((index * 1000) / subWindowsPerSecond(limit))).quota,
          `L=${limit}`,
        );
    }
  });

  /** Second → how many held-back deliveries come back in it, for deliveries held back at `times`, one queue. */
  function returns(limit: number, times: readonly number[]): Map<number, number> {
    let next = 0;
    const back = new Map<number, number>();
    for (const t of times) {
      const turn = Math.max(next, earliestTurn(sendWindowAt(limit, t)));
      next = turn + 1;
      const second = turnWindow(limit, turn).second;
      back.set(second, (back.get(second) ?? 0) + 1);
    }
    return back;
  }

  it('brings a burst back at L a second, whatever phase it was held back at: 1,000 held back within 100 ms at 20/s return over 50 s, 20 in each', () => {
    // One queue for the subscription: the turns cover every sub-window, so a burst that arrived
    // faster than a second still comes back spread over all of them.
    for (const spreadMs of [1, 100, 1000]) {
      const back = returns(
        20,
        Array.from({ length: 1000 }, (_, i) => T0 + Math.floor((i * spreadMs) / 1000)),
      );
      const counts = [...back.entries()].sort(([a], [b]) => a - b).map(([, n]) => n);
      assert.deepEqual(new Set(counts.slice(1, -1)), new Set([20]), `spread ${spreadMs} ms: ${JSON.stringify(counts)}`);
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        1000,
      );
      assert.ok(back.size <= 51, `spread ${spreadMs} ms: ${back.size} seconds`);
    }
  });
});

describe('mostInAnySecond: the figure the bound is checked with', () => {
  it('counts the busiest half-open second, wherever it starts', () => {
    assert.equal(mostInAnySecond([]), 0);
    assert.equal(mostInAnySecond([5]), 1);
    // 0, 999 and 1000: [0, 1000) holds two, [999, 1999) holds two, never three.
    assert.equal(mostInAnySecond([1000, 0, 999]), 2);
    // A window that straddles two epoch seconds: 10 at 500..509 and 10 at 1400..1409 fall in [500, 1500).
    const straddle = [
      ...Array.from({ length: 10 }, (_, i) => 500 + i),
      ...Array.from({ length: 10 }, (_, i) => 1400 + i),
    ];
    assert.equal(mostInAnySecond(straddle), 20);
  });
});

describe("the count's lead: how far ahead a count aims, so that it is back before its sub-window ends", () => {
  it('rises at once to a slower count, eases off by a tenth a count, and stops at a second', () => {
    assert.equal(countLead(0, 5), 5);
    assert.equal(countLead(5, 300), 300, 'a busy table: the next counts aim 300 ms ahead');
    assert.equal(countLead(300, 5), 270);
    let lead = 300;
    for (let i = 0; i < 60; i++) lead = countLead(lead, 5);
    assert.equal(lead, 5, 'back to what counts take once the table is quiet');
    assert.equal(countLead(0, 5_000), 1000);
  });
});

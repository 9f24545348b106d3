/** One 2xx answer the chaos receiver gave: when the request had arrived and when it was answered. */
export interface Answer {
  readonly arrivedAt: number;
  readonly answeredAt: number;
}

/**
 * Why an endpoint was sent a delivery again after it had answered it 2xx: each 2xx answer
 * followed by another for the same (endpoint, webhook-id) is counted once, by what kept its
 * outcome from being written.
 */
export interface DuplicateCauses {
  /** The runtime was SIGKILLed while the receiver held the request (or just before it read it): it answered a client that was gone. */
  readonly answeredAfterKill: number;
  /** Answered, then SIGKILLed before the outcome was written (within the record window). */
  readonly killedBeforeRecord: number;
  /**
   * Neither: no kill explains it. The engine sent again what it had seen answered, or its attempt
   * timeout fired before it read an answer the receiver had sent in time. Expected 0.
   */
  readonly unexplained: number;
  /** Up to 10 unexplained ones, with their timing, to look into. */
  readonly unexplainedSamples: readonly string[];
}

/**
 * Sorts every repeated 2xx answer by its cause, given when the runtime was killed. A kill up to
 * `recordWindowMs` after an answer explains it: the answer had reached a runtime that had not
 * yet written its outcome (measured at about 10-120 ms on 2 cores under the chaos load; the
 * window allowed is far wider, so only a duplicate with no kill near it is unexplained).
 */
/**
 * How long before a request reaches the receiver a kill may have come and still be the one it
 * raced: the runtime wrote the request just before it died, and the harness, busy, read it
 * after the kill was sent.
 */
export const KILL_RACE_MS = 250;

export function duplicateCauses(
  answers: ReadonlyMap<string, readonly Answer[]>,
  kills: readonly number[],
  recordWindowMs: number,
  /** How a sample names its (endpoint, webhook-id) key: the harness adds the delivery's id. */
  name: (key: string) => string = (key) => key,
): DuplicateCauses {
  const killedWithin = (from: number, to: number) => kills.some((k) => k >= from && k <= to);
  let answeredAfterKill = 0;
  let killedBeforeRecord = 0;
  let unexplained = 0;
  const unexplainedSamples: string[] = [];
  for (const [key, list] of answers) {
    const sorted = [...list].sort((a, b) => a.answeredAt - b.answeredAt);
    // Every answer but the last was followed by another: that one is the duplicate it caused.
    sorted.slice(0, -1).forEach((answer, i) => {
      if (killedWithin(answer.arrivedAt - KILL_RACE_MS, answer.answeredAt)) answeredAfterKill++;
      else if (killedWithin(answer.answeredAt, answer.answeredAt + recordWindowMs)) killedBeforeRecord++;
      else {
        if (unexplainedSamples.length < 10) unexplainedSamples.push(describe(name(key), answer, sorted[i + 1]!, kills));
        unexplained++;
      }
    });
  }
  return { answeredAfterKill, killedBeforeRecord, unexplained, unexplainedSamples };
}

/** One unexplained duplicate's timing: how long the receiver held it, when it came again, the nearest kill. */
function describe(key: string, answer: Answer, next: Answer, kills: readonly number[]): string {
  const nearest = kills.reduce<number | undefined>(
    (best, k) =>
      best === undefined || Math.abs(k - answer.answeredAt) < Math.abs(best - answer.answeredAt) ? k : best,
    undefined,
  );
  const kill = nearest === undefined ? 'no kill' : `nearest kill ${nearest - answer.answeredAt} ms after the answer`;
  return `${key}: answered at ${new Date(answer.answeredAt).toISOString()}, ${answer.answeredAt - answer.arrivedAt} ms after it arrived, again ${next.arrivedAt - answer.answeredAt} ms later; ${kill}`;
}

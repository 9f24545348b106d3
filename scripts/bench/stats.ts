/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Runs `measure` `times` times, one after another, and returns every result. */
export async function repeat<T>(times: number, measure: (run: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < times; i++) out.push(await measure(i));
  return out;
}

/** The run whose `key` is the median one (so a row's figures come from one consistent run). */
export function medianRun<T>(runs: readonly T[], key: (run: T) => number): T {
  const m = median(runs.map(key));
  return runs.find((r) => key(r) === m)!;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
/** Dollars to the cent, as every report prints them. */
export const usd = (n: number) => `$${n.toFixed(2)}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

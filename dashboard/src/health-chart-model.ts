/**
 * The health charts' geometry and words (health-chart.tsx draws them): the stats' `series` as
 * SVG path data and as the sentence a screen reader hears instead of the picture. Pure: no DOM,
 * no fetch, so the unit tests run it as it is (test/unit/dashboard/health-chart-model.test.ts).
 */

/** One bucket of the stats' `series`, as the API answers it. */
export interface ChartBucket {
  readonly from: string;
  readonly to: string;
  readonly attempts: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly successRate: number | null;
  readonly latencyMs: { readonly p50: number | null; readonly p95: number | null };
  readonly deadLettered: number;
}

export interface ChartSeries {
  readonly bucketMinutes: number;
  readonly buckets: readonly ChartBucket[];
}

/** The windows the page offers: the toggle's buttons, in order. */
export const HEALTH_CHART_WINDOWS = [
  { hours: 24, label: '24 h' },
  { hours: 168, label: '7 d' },
] as const;

/** A window in words: "24 h", "7 days". */
export function windowName(hours: number): string {
  return hours > 24 && hours % 24 === 0 ? `${hours / 24} days` : `${hours} h`;
}

/** A bucket's length in words: "hour", "6 hours", "2 minutes". */
export function bucketName(minutes: number): string {
  if (minutes === 60) return 'hour';
  if (minutes % 60 === 0) return `${minutes / 60} hours`;
  return minutes === 1 ? 'minute' : `${minutes} minutes`;
}

/** The plot's height in its own units; the width is one unit per bucket. */
export const PLOT_HEIGHT = 100;

const num = (n: number) => String(Math.round(n * 100) / 100);

/**
 * Path data for `values` over equal slots one unit wide, a point at each slot's centre, `top`
 * at y 0 and 0 at PLOT_HEIGHT. A null (a bucket with no attempt) ends the line, so an empty
 * bucket is a gap, never a 0; a value with no neighbour is a short dash across its slot, so it
 * still shows.
 */
export function linePath(values: readonly (number | null)[], top: number): string {
  const y = (v: number) => num(PLOT_HEIGHT - (Math.min(v, top) / top) * PLOT_HEIGHT);
  const parts: string[] = [];
  let run: string[] = [];
  const end = () => {
    if (run.length === 1) {
      const [x, at] = run[0]!.split(' ').map(Number) as [number, number];
      parts.push(`M${num(x - 0.3)} ${at}H${num(x + 0.3)}`);
    } else if (run.length > 1) parts.push(`M${run.join('L')}`);
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null) end();
    else run.push(`${num(i + 0.5)} ${y(v)}`);
  });
  end();
  return parts.join('');
}

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value`, and at least `floor`: a latency axis's top. */
export function niceTop(value: number, floor = 10): number {
  const v = Math.max(value, floor);
  const power = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 5, 10]) if (step * power >= v) return step * power;
  return 10 * power;
}

/** How the summaries write a rate, a duration and an instant (ui.tsx's, passed in). */
export interface Formats {
  readonly percent: (rate: number) => string;
  readonly ms: (value: number) => string;
  readonly time: (iso: string) => string;
}

/** What a chart is of, for its caption and its summary: "per hour, last 24 h". */
export function chartScope(series: ChartSeries, windowHours: number): string {
  return `per ${bucketName(series.bucketMinutes)}, last ${windowName(windowHours)}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sentence that stands for the success-rate chart: how much was attempted, the worst bucket and the latest. */
export function successSummary(series: ChartSeries, windowHours: number, f: Formats): string {
  const head = `Success rate of attempts ${chartScope(series, windowHours)}`;
  const busy = series.buckets.filter((b) => b.successRate !== null);
  if (busy.length === 0) return `${head}: no attempts.`;
  const attempts = busy.reduce((n, b) => n + b.attempts, 0);
  const succeeded = busy.reduce((n, b) => n + b.succeeded, 0);
  const worst = busy.reduce((w, b) => (b.successRate! < w.successRate! ? b : w));
  const latest = busy.at(-1)!;
  const unit = bucketName(series.bucketMinutes);
  return (
    `${head}: ${plural(attempts, 'attempt')} in ${busy.length} of ${series.buckets.length} ${unit === 'hour' ? 'hours' : `buckets of ${unit}`}, ` +
    `${f.percent(succeeded / attempts)} succeeded; lowest ${f.percent(worst.successRate!)} from ${f.time(worst.from)}, ` +
    `latest ${f.percent(latest.successRate!)} from ${f.time(latest.from)}.`
  );
}

/** The sentence that stands for the latency chart: the slowest p95 and the latest p50 and p95. */
export function latencySummary(series: ChartSeries, windowHours: number, f: Formats): string {
  const head = `Attempt latency, p50 and p95, ${chartScope(series, windowHours)}`;
  const busy = series.buckets.filter((b) => b.latencyMs.p95 !== null);
  if (busy.length === 0) return `${head}: no attempts.`;
  const slowest = busy.reduce((w, b) => (b.latencyMs.p95! > w.latencyMs.p95! ? b : w));
  const latest = busy.at(-1)!;
  return (
    `${head}: highest p95 ${f.ms(slowest.latencyMs.p95!)} from ${f.time(slowest.from)}; ` +
    `latest p50 ${f.ms(latest.latencyMs.p50!)} and p95 ${f.ms(latest.latencyMs.p95!)} from ${f.time(latest.from)}.`
  );
}

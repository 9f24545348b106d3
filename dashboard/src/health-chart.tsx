import type { ComponentChildren } from 'preact';
import type { Stats } from './health.tsx';
import {
  bucketName,
  chartScope,
  latencySummary,
  linePath,
  niceTop,
  PLOT_HEIGHT,
  successSummary,
  type Formats,
} from './health-chart-model.ts';
import { ms, percent, TableWrap } from './ui.tsx';

/** A bucket's start: the weekday too, since a day's window crosses midnight. */
const BUCKET_TIME = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
const time = (iso: string) => BUCKET_TIME.format(new Date(iso));
const FORMATS: Formats = { percent, ms, time };

/** Gridlines at 0, half and the top, in the plot's own units. */
const GRIDLINES = [0, PLOT_HEIGHT / 2, PLOT_HEIGHT];

function Chart(props: {
  readonly title: string;
  readonly scope: string;
  readonly summary: string;
  readonly buckets: number;
  /** Top, middle and bottom of the axis. */
  readonly axis: readonly [string, string, string];
  readonly start: string;
  readonly legend?: ComponentChildren;
  readonly children: ComponentChildren;
}) {
  return (
    <figure class="chart">
      <figcaption>
        <span class="chart-title">{props.title}</span> <span class="muted">{props.scope}</span>
      </figcaption>
      {/* The picture is one image to assistive technology: its summary is the label, the table below the detail. */}
      <div class="chart-frame" role="img" aria-label={props.summary}>
        <div class="chart-axis">
          {props.axis.map((label) => (
            <span key={label}>{label}</span>
          ))}
        </div>
        <svg
          class="chart-plot"
          viewBox={`0 0 ${props.buckets} ${PLOT_HEIGHT}`}
          preserveAspectRatio="none"
          focusable="false"
          aria-hidden="true"
        >
          {GRIDLINES.map((y) => (
            <line key={y} class="grid" x1={0} x2={props.buckets} y1={y} y2={y} />
          ))}
          {props.children}
        </svg>
        <div class="chart-time">
          <span>{props.start}</span>
          <span>now</span>
        </div>
      </div>
      {props.legend}
    </figure>
  );
}

/**
 * The success-rate and latency charts of one window (the stats' `series`), inline SVG drawn
 * here (the page loads nothing else): an empty bucket is a gap in the line, never a 0. Each
 * chart is one image whose label sums it up; the buckets themselves are a table under them.
 */
export function HealthCharts({ stats }: { readonly stats: Stats }) {
  const { series, window } = stats;
  const buckets = series.buckets;
  const scope = chartScope(series, window.hours);
  const sample = stats.sampled
    ? ` Based on a sample: the newest ${stats.examined} deliveries; older buckets may be missing some.`
    : '';
  const top = niceTop(Math.max(0, ...buckets.map((b) => b.latencyMs.p95 ?? 0)));
  const start = buckets[0] ? time(buckets[0].from) : '';
  const unit = bucketName(series.bucketMinutes);
  return (
    <div class="health-charts">
      <div class="charts">
        <Chart
          title="Success rate of attempts"
          scope={scope}
          summary={successSummary(series, window.hours, FORMATS) + sample}
          buckets={buckets.length}
          axis={['100 %', '50 %', '0 %']}
          start={start}
        >
          <path
            class="line line-success"
            d={linePath(
              buckets.map((b) => b.successRate),
              1,
            )}
          />
        </Chart>
        <Chart
          title="Latency"
          scope={scope}
          summary={latencySummary(series, window.hours, FORMATS) + sample}
          buckets={buckets.length}
          axis={[ms(top), ms(top / 2), '0 ms']}
          start={start}
          legend={
            <p class="chart-legend">
              <span class="key key-p50" /> p50 (median) <span class="key key-p95" /> p95
            </p>
          }
        >
          <path
            class="line line-p50"
            d={linePath(
              buckets.map((b) => b.latencyMs.p50),
              top,
            )}
          />
          <path
            class="line line-p95"
            d={linePath(
              buckets.map((b) => b.latencyMs.p95),
              top,
            )}
          />
        </Chart>
      </div>
      {stats.sampled && (
        <p class="muted">
          The charts are based on a sample: the newest {stats.examined} deliveries. Older buckets may be missing some.
        </p>
      )}
      <details class="chart-table">
        <summary>The charts as a table, one row per {unit}</summary>
        <TableWrap label={`Health per ${unit}`}>
          <table>
            <caption>
              {scope.charAt(0).toUpperCase() + scope.slice(1)}, oldest first. A bucket with no attempt has no rate.
            </caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Attempts</th>
                <th scope="col">Succeeded</th>
                <th scope="col">Failed</th>
                <th scope="col">Success rate</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col">Dead-lettered</th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b.from}>
                  <th scope="row">
                    <time dateTime={b.from} title={`${b.from} to ${b.to}`}>
                      {time(b.from)}
                    </time>
                  </th>
                  <td>{b.attempts}</td>
                  <td>{b.succeeded}</td>
                  <td>{b.failed}</td>
                  <td>{percent(b.successRate)}</td>
                  <td>{ms(b.latencyMs.p50)}</td>
                  <td>{ms(b.latencyMs.p95)}</td>
                  <td>{b.deadLettered}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </div>
  );
}

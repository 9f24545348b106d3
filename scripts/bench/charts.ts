import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as echarts from 'echarts';

/** Charts live beside BENCHMARKS.md, in benchmarks/, and are linked from the section that made them. */
export const CHART_DIR = resolve(import.meta.dirname, '../../benchmarks');

export interface BarSeries {
  readonly name: string;
  readonly values: readonly number[];
}

export interface Chart {
  /** File name without extension (overwritten by the next run: the section's figures are in its tables). */
  readonly file: string;
  readonly title: string;
  readonly categories: readonly string[];
  readonly series: readonly BarSeries[];
  readonly yAxis: string;
  /** Bars (the default), or lines for a series over time (the scale model's seconds). */
  readonly kind?: 'bar' | 'line';
}

const WIDTH = 880;
const HEIGHT = 420;

/** One grouped bar chart (or a line chart, `kind: "line"`) as an SVG document, rendered server-side by ECharts (no DOM, no network). */
export function renderBarChart(chart: Chart): string {
  const instance = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  instance.setOption({
    animation: false,
    // Opaque: a transparent chart's dark text vanishes on a dark page (GitHub's dark theme).
    backgroundColor: '#ffffff',
    title: { text: chart.title, left: 'center', top: 6, textStyle: { fontSize: 15 } },
    // Server-side rendering measures text roughly: a wide gap keeps legend entries apart.
    legend: { top: 36, itemGap: 40 },
    grid: { left: 70, right: 20, top: 80, bottom: 70 },
    // Each label wraps within its own slot, however many categories share the axis.
    xAxis: {
      type: 'category',
      data: [...chart.categories],
      axisLabel: {
        interval: chart.kind === 'line' ? 'auto' : 0,
        width: Math.floor((WIDTH - 90) / Math.max(1, chart.categories.length)) - 12,
        overflow: 'break',
        fontSize: 11,
      },
    },
    yAxis: { type: 'value', name: chart.yAxis, nameLocation: 'middle', nameGap: 50 },
    series: chart.series.map((s) => ({
      name: s.name,
      type: chart.kind ?? 'bar',
      data: [...s.values],
      ...(chart.kind === 'line'
        ? { showSymbol: false }
        : {
            label: { show: true, position: 'top', fontSize: 10, formatter: (p: { value: number }) => format(p.value) },
          }),
    })),
  });
  const svg = instance.renderToSVGString();
  instance.dispose();
  return svg;
}

function format(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Writes the charts and returns the Markdown that shows them, with paths relative to BENCHMARKS.md. */
export function writeCharts(charts: readonly Chart[], dir = CHART_DIR): string {
  mkdirSync(dir, { recursive: true });
  return charts
    .map((chart) => {
      const path = join(dir, `${chart.file}.svg`);
      writeFileSync(path, renderBarChart(chart));
      return `![${chart.title}](${relative(resolve(dir, '..'), path)})`;
    })
    .join('\n\n');
}

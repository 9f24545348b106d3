import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderBarChart, writeCharts } from '../../../scripts/bench/charts.ts';

const chart = {
  file: 'cost',
  title: 'Cost per million deliveries',
  categories: ['first try', '500, 500, 200'],
  series: [
    { name: 'Hookline', values: [7.01, 19.73] },
    { name: 'EventBridge API destinations', values: [1.2, 1.6] },
  ],
  yAxis: 'USD',
};

describe('benchmark charts', () => {
  it('renders a standalone SVG with the title, every category, series name and value label', () => {
    const svg = renderBarChart(chart);

    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const text of [
      'Cost per million deliveries',
      'first try',
      'Hookline',
      'EventBridge API destinations',
      '7.01',
      '19.7',
    ])
      assert.ok(svg.includes(text), text);
    assert.doesNotMatch(svg, /https?:\/\/(?!www\.w3\.org)/, 'no external reference');
  });

  it('writes one file per chart and returns Markdown that links it relative to BENCHMARKS.md', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-charts-'));
    try {
      const markdown = writeCharts([chart], join(dir, 'benchmarks'));
      assert.equal(markdown, '![Cost per million deliveries](benchmarks/cost.svg)');
      assert.match(readFileSync(join(dir, 'benchmarks', 'cost.svg'), 'utf8'), /<svg/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

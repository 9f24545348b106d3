import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AREAS, CHAOS_HEADING, areaOfHeading, type AreaKey } from '../../../scripts/bench/areas.ts';
import {
  BenchmarksFileError,
  TREND_COLUMNS,
  TREND_ROWS,
  convertLegacy,
  recordRun,
  updateBenchmarks,
  type Measured,
  type Run,
} from '../../../scripts/bench/benchmarks-file.ts';
import type { CostRun } from '../../../scripts/bench/cost.ts';
import { renderCost } from '../../../scripts/bench/cost-report.ts';
import { perDelivery } from '../../../scripts/bench/cost-model.ts';
import { renderNotices } from '../../../scripts/bench/notices.ts';
import { call, usage as usageOf } from './usage-fixture.ts';
import { FULL_PLAN } from '../../../scripts/bench/plan.ts';
import { renderRateLimit } from '../../../scripts/bench/rate-limit.ts';
import { renderColdStart, renderEndToEnd, renderOverhead, renderRetryTiming } from '../../../scripts/bench/report.ts';
import { renderRouting, type RoutingRun } from '../../../scripts/bench/routing.ts';
import { renderChaos } from '../../../scripts/chaos/report.ts';
import { FULL_CHAOS } from '../../../scripts/chaos/presets.ts';
import type { ChaosReport } from '../../../scripts/chaos/run-chaos.ts';

const run = (minute: number, more: Partial<Run> = {}): Run => ({
  date: `2026-12-03 ${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')} UTC`,
  commit: `c0ffee${minute % 10}`,
  command: 'npm run bench',
  commandDetail: '(3 runs per figure, medians), 1.0 minutes',
  machine: '2 cores (Test CPU), 8 GiB memory, Node v22.0.0, linux/x64',
  ...more,
});
const section = (key: AreaKey, heading: string, figure: string): Measured => ({
  key,
  markdown: `${heading}\n\nSome prose.\n\n| figure | value |\n| --- | --- |\n| a figure | ${figure} |`,
});
const cost = (figure: string) => section('cost', '### AWS cost per million deliveries', figure);
const routing = (figure: string) =>
  section('routing', '### Fan-out routing: 1,000 subscriptions over 10 tenants', figure);
const cold = (figure: string) => section('cold', '### Cold start', figure);

/** The file's areas by key, read with a regex of the test's own (not the code under test). */
function areasOf(text: string): Map<string, string> {
  const body = text.slice(0, text.indexOf('<!-- trend -->'));
  const found = [...body.matchAll(/^<!-- area: ([a-z0-9-]+) -->$/gm)];
  return new Map(found.map((m, i) => [m[1]!, body.slice(m.index, found[i + 1]?.index ?? body.length)]));
}
const headOf = (text: string) => text.slice(0, text.indexOf('<!-- area: '));
const trendLines = (text: string) =>
  text
    .slice(text.indexOf('<!-- trend -->'))
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2);
const cells = (line: string) => line.slice(2, -2).split(' | ');

describe('BENCHMARKS.md: one section per area', () => {
  it('replaces the area a run measured and keeps every other byte, hand edits included', () => {
    const first = updateBenchmarks(undefined, run(60), [cost('$1.50'), routing('1.44'), cold('188 ms')]);
    // Edits a reader could make between runs: they must survive a run that does not measure their area.
    const edited = first
      .replace(
        'Some prose.\n\n| figure | value |\n| --- | --- |\n| a figure | 188 ms |',
        'Some prose.\n\nA note added by hand.\n\n| figure | value |\n| --- | --- |\n| a figure | 188 ms |',
      )
      .replace('## Current figures', 'A line added by hand.\n\n## Current figures')
      .replace('<!-- area: routing -->', '\n<!-- area: routing -->')
      .replace('<!-- trend -->', '\n\n<!-- trend -->');
    assert.notEqual(edited, first);

    const second = updateBenchmarks(
      edited,
      run(75, { command: 'npm run bench -- --only=routing', commit: 'beefcafe' }),
      [routing('1.61')],
    );

    const before = areasOf(edited);
    const after = areasOf(second);
    assert.deepEqual([...after.keys()], ['cost', 'routing', 'cold']);
    assert.equal(after.get('cost'), before.get('cost'));
    assert.equal(after.get('cold'), before.get('cold'));
    assert.match(after.get('cold')!, /A note added by hand\./);
    assert.equal(headOf(second), headOf(edited));
    // The routing section is the new run's, with its machine, command, commit and date.
    const r = after.get('routing')!;
    assert.match(r, /^<!-- area: routing -->\n### Fan-out routing: 1,000 subscriptions over 10 tenants\n\n/);
    assert.match(
      r,
      /- Date: 2026-12-03 01:15 UTC\n- Commit: beefcafe\n- Command: `npm run bench -- --only=routing` \(3 runs per figure, medians\), 1\.0 minutes\n- Machine: 2 cores \(Test CPU\)/,
    );
    assert.match(r, /\| a figure \| 1\.61 \|/);
    assert.doesNotMatch(r, /1\.44|01:00/);
    // Everything but the routing section and the new Trend row is as it was.
    const withoutNewRow = second.replace(`${trendLines(second)[0]}\n`, '');
    assert.equal(withoutNewRow.replace(r, ''), edited.replace(before.get('routing')!, ''));
  });

  it('adds an area the file does not have yet where areas.ts puts it, leaving the others as they were', () => {
    const first = updateBenchmarks(undefined, run(0), [cost('$1.50'), cold('188 ms')]);
    const second = updateBenchmarks(first, run(1), [routing('1.44')]);
    const after = areasOf(second);
    assert.deepEqual([...after.keys()], ['cost', 'routing', 'cold']);
    assert.equal(after.get('cost'), areasOf(first).get('cost'));
    assert.equal(after.get('cold'), areasOf(first).get('cold'));
    assert.match(after.get('routing')!, /\| a figure \| 1\.44 \|/);
    // The areas follow areas.ts's order whatever order a run measures them in.
    const third = updateBenchmarks(second, run(2), [
      section('chaos', CHAOS_HEADING, '0'),
      section('overhead', '### Engine overhead', '0.58'),
    ]);
    assert.deepEqual([...areasOf(third).keys()], ['cost', 'overhead', 'routing', 'cold', 'chaos']);
  });

  it('keeps the Trend table newest first, one row per run, the last 30 runs', () => {
    let text: string | undefined;
    for (let i = 0; i < TREND_ROWS + 5; i++)
      text = updateBenchmarks(text, run(i, { commit: `run${i}` }), [routing(`${i}`)]);
    const rows = trendLines(text!);
    assert.equal(rows.length, TREND_ROWS);
    assert.deepEqual(
      rows.map((l) => cells(l)[1]),
      Array.from({ length: TREND_ROWS }, (_, k) => `run${TREND_ROWS + 4 - k}`),
    );
    const dates = rows.map((l) => cells(l)[0]!);
    assert.deepEqual(dates, [...dates].sort().reverse());
    assert.equal(dates[0], '2026-12-03 00:34');
    // The areas hold only the newest run's section.
    assert.match(areasOf(text!).get('routing')!, /\| a figure \| 34 \|/);
    assert.equal(text!.match(/<!-- area: routing -->/g)?.length, 1);
  });

  it("gives each run a Trend row with the headline figures of the areas it measured, read off the renderers' sections", () => {
    const routingRun: RoutingRun = {
      subscriptions: 1000,
      tenants: 10,
      events: 3,
      entries: 1950,
      seedSeconds: 2,
      eventRru: [1, 1.5, 2],
      matched: [3, 3, 3],
      lookupMs: [2, 2, 2],
      keyRru: [0.5],
      scanRru: 89,
      scanSeconds: 1,
      listingRru: [2, 2],
      listingItems: 50,
      filteredScanRru: 22,
      broadcastRru: 9,
      broadcastMatched: 340,
    };
    const chaos: ChaosReport = {
      events: 3000,
      accepted: 3000,
      publishRetries: 700,
      deliveries: 6000,
      delivered: 5924,
      failed: 76,
      expired: 0,
      lost: 0,
      lostSamples: [],
      receiverRequests: 8984,
      behaviours: { ok: 4988 },
      duplicates: 95,
      duplicateRate: 95 / 5924,
      duplicateCauses: { answeredAfterKill: 6, killedBeforeRecord: 89, unexplained: 0, unexplainedSamples: [] },
      unverified: 0,
      redirectsFollowed: 0,
      unrecordedAttempts: 183,
      deadLettersChecked: 76,
      deadLettersWithoutLog: 0,
      kills: 18,
      purged: true,
      peakRuntimeRssMb: 439,
      peakHarnessRssMb: 193,
      publishSeconds: 139,
      drainSeconds: 60,
      totalSeconds: 206,
    };
    const bundle = (fn: string, sdk: 'bundled' | 'external', kb: number, initMs: number) => ({
      fn,
      sdk,
      bytes: kb * 1024,
      initMs,
      largest: [],
    });
    const throughput = (perSecond: number, senderConcurrency = 4) => ({
      fanOut: 1,
      senderConcurrency,
      deliveries: 1000,
      perSecond,
    });
    const fo1Sqs = FULL_PLAN.cost.find((s) => s.id === 'fo1-sqs')!;
    const usage = usageOf({
      'DynamoDB PutItem hookline-events': call({ count: 2, billedRequests: 2, writeUnits: 2 }),
    });
    const costRun: CostRun = {
      scenario: { ...fo1Sqs, events: 2 },
      usage,
      logs: { lines: 0, bytes: 0 },
      cpuMs: 0,
      perDelivery: perDelivery(usage, {}, 2, 0),
    };

    const measured: Measured[] = [
      { key: 'cost', markdown: renderCost([[costRun]]) },
      {
        key: 'overhead',
        markdown: renderOverhead([
          {
            rawPerSecond: 10_000,
            signedRawPerSecond: 8000,
            memoryPerSecond: 6000,
            emulatorPerSecond: 300,
            concurrency: 32,
            count: 1500,
            memoryProfile: [],
          },
        ]),
      },
      {
        key: 'e2e',
        markdown: renderEndToEnd(
          [throughput(150)],
          [throughput(440)],
          [throughput(120, 20)],
          [{ deliveries: 1000, perSecond: 250 }],
          [[{ offeredPerSecond: 100, events: 1000, acceptedPerSecond: 100, p50: 20, p95: 50, p99: 90, max: 120 }]],
          [],
        ),
      },
      {
        key: 'retry',
        markdown: renderRetryTiming(
          [{ deliveries: 10, failuresFirst: 3, lateness: [150, 150, 150, 170], early: 0, outsideJitterBounds: 0 }],
          {},
        ),
      },
      {
        key: 'notices',
        markdown: renderNotices([
          {
            deliveries: 500,
            notices: 4,
            runs: 13,
            noticeWriteUnits: 9,
            noticeWrites: { PutItem: 5, UpdateItem: 4 },
            noticeReadUnits: 22,
          },
        ]),
      },
      {
        key: 'rate-limit',
        markdown: renderRateLimit([
          {
            events: 1000,
            limit: 20,
            publishedAs: 'batch',
            maxStartsInOneSecond: 21,
            maxInOneSecond: 21,
            drainSeconds: 66,
            arrivalSpanSeconds: 65.5,
            requests: 1000,
            limited: {},
            unlimited: {},
          },
        ]),
      },
      { key: 'routing', markdown: renderRouting(routingRun) },
      {
        key: 'cold',
        markdown: renderColdStart(
          [bundle('sender', 'bundled', 399, 188), bundle('sender', 'external', 117, 335)],
          126,
          5,
        ),
      },
      { key: 'chaos', markdown: renderChaos(chaos, FULL_CHAOS) },
      {
        key: 'chaos-dynamodb-local',
        markdown: renderChaos(
          { ...chaos, duplicates: 12, duplicateRate: 0.002 },
          { ...FULL_CHAOS, dynamodbEndpoint: 'http://127.0.0.1:8000' },
        ),
      },
    ];
    const headline = (key: AreaKey) =>
      AREAS.find((a) => a.key === key)!.headline(measured.find((m) => m.key === key)!.markdown);
    assert.match(headline('cost'), /^\$\d+\.\d\d \(1\.00\) \/ –$/);
    assert.equal(headline('overhead'), '0.60 / 0.030');
    assert.equal(headline('e2e'), '150 / 440 / 250');
    assert.equal(headline('retry'), '170 / 170 (0)');
    assert.equal(headline('notices'), '0.0180');
    assert.equal(headline('rate-limit'), '21 / 22');
    assert.equal(headline('routing'), '1.50 / 2.00');
    assert.equal(headline('cold'), '399 KB / 188');
    assert.equal(headline('chaos'), '0 / 95 (1.60 %)');
    // The run on DynamoDB Local is an area of its own, though its heading starts as the other's does.
    assert.equal(headline('chaos-dynamodb-local'), '0 / 12 (0.20 %)');
    const chaosOn = (key: AreaKey) => measured.find((m) => m.key === key)!.markdown.split('\n')[0]!;
    assert.equal(areaOfHeading(chaosOn('chaos'))?.key, 'chaos');
    assert.equal(areaOfHeading(chaosOn('chaos-dynamodb-local'))?.key, 'chaos-dynamodb-local');
    assert.match(measured.find((m) => m.key === 'chaos-dynamodb-local')!.markdown, /Amazon's DynamoDB Local/);

    // A run of two areas: its row has their figures in their columns and nothing in the others.
    const text = updateBenchmarks(
      undefined,
      run(5, { command: 'npm run bench -- --only=routing,cold' }),
      measured.filter((m) => m.key === 'routing' || m.key === 'cold'),
    );
    const header = text.split('\n').find((l) => l.startsWith('| date (UTC) |'))!;
    assert.deepEqual(cells(header), TREND_COLUMNS);
    const row = new Map(TREND_COLUMNS.map((c, i) => [c, cells(trendLines(text)[0]!)[i]]));
    assert.equal(row.get('date (UTC)'), '2026-12-03 00:05');
    assert.equal(row.get('command'), '`npm run bench -- --only=routing,cold`');
    assert.equal(row.get(AREAS.find((a) => a.key === 'routing')!.trendColumn), '1.50 / 2.00');
    assert.equal(row.get(AREAS.find((a) => a.key === 'cold')!.trendColumn), '399 KB / 188');
    for (const a of AREAS.filter((x) => x.key !== 'routing' && x.key !== 'cold'))
      assert.equal(row.get(a.trendColumn), '', a.key);
    // Each section keeps its renderer's heading, figures and all.
    assert.match(
      areasOf(text).get('routing')!,
      /^<!-- area: routing -->\n### Fan-out routing: 1,000 subscriptions over 10 tenants\n/,
    );
  });

  it('adds a Trend column the file does not have yet, the earlier rows empty in it', () => {
    // The newest area's column: the last of the Trend table.
    const lastArea = AREAS.at(-1)!;
    const newColumn = lastArea.trendColumn;
    const full = updateBenchmarks(undefined, run(0), [cost('$1.50')]);
    // The same file as written by a version without that column.
    const at = full.indexOf('<!-- trend -->');
    const older =
      full.slice(0, at) +
      full
        .slice(at)
        .split('\n')
        .map((l) => (l.startsWith('|') ? l.replace(/ \| [^|]*\|$/, ' |') : l))
        .join('\n');
    assert.equal(cells(older.split('\n').find((l) => l.startsWith('| date'))!).includes(newColumn), false);
    const oldRow = trendLines(older)[0]!;
    const next = updateBenchmarks(older, run(1), [section(lastArea.key, lastArea.heading, '0')]);
    const header = cells(next.split('\n').find((l) => l.startsWith('| date'))!);
    assert.equal(header.at(-1), newColumn);
    assert.equal(header.length, TREND_COLUMNS.length);
    const [newest, earlier] = trendLines(next);
    assert.equal(cells(newest!).length, header.length);
    assert.equal(earlier, oldRow.replace(/ \|$/, ' |  |'));
    // The cost table itself (not the Trend table) was not touched.
    assert.equal(areasOf(next).get('cost'), areasOf(older).get('cost'));
  });
});

describe('BENCHMARKS.md that cannot be read back', () => {
  const good = updateBenchmarks(undefined, run(0), [cost('$1.50'), cold('188 ms')]);
  const broken: readonly [string, string][] = [
    ['no Trend marker', good.replace('<!-- trend -->\n', '')],
    ['an area twice', good.replace('<!-- area: cold -->', '<!-- area: cost -->')],
    [
      'an area marker without its heading',
      good.replace('<!-- area: cold -->\n### Cold start', '<!-- area: cold -->\nCold start'),
    ],
    ['a Trend row with a cell too many', good.replace(/(\n\| 2026-12-03 00:00 \|[^\n]*)/, '$1 extra |')],
    ['a Trend table without its header', good.replace(/\n\| date \(UTC\) \|[^\n]*\n/, '\n')],
    ['not a benchmarks file', '# Benchmarks\n\nSomething else entirely.\n'],
    [
      'a dated section of no known area',
      '# Benchmarks\n\n<!-- sections: newest first -->\n\n## 2026-12-01 10:00 UTC: npm run bench\n\nMachine: 2 cores, commit abc\nCommand: `npm run bench`\n\n### Something new\n\nA figure.\n',
    ],
  ];

  for (const [what, text] of broken) {
    it(`refuses a file with ${what}`, () => {
      assert.throws(() => updateBenchmarks(text, run(1), [routing('1.44')]), BenchmarksFileError);
    });
  }

  it('leaves such a file as it was and writes the run to a file beside it, in the same layout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-benchmarks-'));
    try {
      const file = join(dir, 'BENCHMARKS.md');
      const text = broken[1]![1];
      writeFileSync(file, text);
      const recorded = recordRun(run(90), [routing('1.44')], file);
      assert.equal(recorded.merged, false);
      assert.match(recorded.problem ?? '', /twice/);
      assert.equal(readFileSync(file, 'utf8'), text);
      assert.equal(recorded.file, join(dir, 'BENCHMARKS.2026-12-03T0130.md'));
      const aside = readFileSync(recorded.file, 'utf8');
      assert.match(areasOf(aside).get('routing')!, /\| a figure \| 1\.44 \|/);
      // The file beside it reads back, so it can itself be merged; a second failing run does not overwrite it.
      assert.doesNotThrow(() => updateBenchmarks(aside, run(91), [cold('1 ms')]));
      assert.equal(recordRun(run(90), [cold('2 ms')], file).file, join(dir, 'BENCHMARKS.2026-12-03T0130-2.md'));
      assert.equal(readFileSync(recorded.file, 'utf8'), aside);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a file that reads back in place, leaving no temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-benchmarks-'));
    try {
      const file = join(dir, 'BENCHMARKS.md');
      writeFileSync(file, good);
      const recorded = recordRun(run(2), [routing('1.44')], file);
      assert.deepEqual(recorded, { file, merged: true });
      assert.equal(readFileSync(file, 'utf8'), updateBenchmarks(good, run(2), [routing('1.44')]));
      assert.deepEqual(readdirSync(dir), ['BENCHMARKS.md']);
      assert.equal(existsSync(join(dir, 'BENCHMARKS.md.tmp')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('BENCHMARKS.md in the dated-runs layout', () => {
  const legacy = [
    '# Benchmarks',
    '',
    'Each run adds a dated section below; older sections are kept for comparison.',
    '',
    '<!-- sections: newest first -->',
    '',
    '## 2026-12-02 14:42 UTC: npm run bench',
    '',
    'Machine: 2 cores (AMD EPYC), 24 GiB memory, Node v22.23.3, linux/x64, commit ba2fa3b',
    'Command: `npm run bench -- --only=routing` (3 runs per figure, medians), 2.6 minutes',
    'Load average (1 / 5 / 15 min) at start 0.98 / 1.37 / 1.51, at end 1.02 / 1.25 / 1.44: anything else running on this machine slows every figure alike.',
    '',
    '### Fan-out routing: 100,000 subscriptions over 1,000 tenants',
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    '| read units per published event (two keys), mean / p99 / max | 1.44 / 2.0 / 2.0 | ≤ 2: met |',
    '',
    '## 2026-12-02 04:12 UTC: npm run chaos',
    '',
    'Machine: 2 cores (AMD EPYC), 24 GiB memory, Node v22.23.3, linux/x64, commit e4c61e3 with the changes committed as d451f50',
    'Command: `npm run chaos`',
    '',
    '3000 events fanned out to 2 endpoints.',
    '',
    '| figure | value |',
    '| --- | --- |',
    '| **lost** | **0** |',
    '| duplicates received (2xx beyond the first per endpoint and webhook-id) | 95 (1.60 % of delivered) |',
    '',
    '## 2026-12-02 03:17 UTC: npm run bench',
    '',
    'Machine: 2 cores (AMD EPYC), 24 GiB memory, Node v22.23.3, linux/x64, commit d0b29b9',
    'Command: `npm run bench` (3 runs per figure, medians), 8.1 minutes',
    '',
    '### Retry timing accuracy',
    '',
    '| retries | early (must be 0) | late p50 ms | late p95 ms | late max ms | gaps outside delay ± jitter | target: none early, late ≤ 1 s + jitter |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    '| 90 | 0 | 165 | 201 | 207 | 0 | met |',
    '',
    '![Retry start after its scheduled time (ms)](benchmarks/retry-lateness.svg)',
    '',
    '### Fan-out routing: 1,000 subscriptions over 10 tenants',
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    '| read units per published event (two keys), mean / p99 / max | 9.99 / 9 / 9 | ≤ 2: **not met** |',
    '',
  ].join('\n');

  it("keeps each area's newest section with its run's machine, command, commit and date, and a Trend row per run", () => {
    const text = convertLegacy(legacy);
    const areas = areasOf(text);
    assert.deepEqual([...areas.keys()], ['retry', 'routing', 'chaos']);
    assert.match(
      areas.get('routing')!,
      /### Fan-out routing: 100,000 subscriptions over 1,000 tenants\n\n- Date: 2026-12-02 14:42 UTC\n- Commit: ba2fa3b\n- Command: `npm run bench -- --only=routing` \(3 runs per figure, medians\), 2\.6 minutes\n- Machine: 2 cores \(AMD EPYC\), 24 GiB memory, Node v22\.23\.3, linux\/x64\n- Load average/,
    );
    assert.doesNotMatch(areas.get('routing')!, /9\.99/);
    assert.match(areas.get('retry')!, /- Date: 2026-12-02 03:17 UTC\n- Commit: d0b29b9\n/);
    assert.match(
      areas.get('retry')!,
      /!\[Retry start after its scheduled time \(ms\)\]\(benchmarks\/retry-lateness\.svg\)/,
    );
    assert.match(
      areas.get('chaos')!,
      new RegExp(
        `^<!-- area: chaos -->\\n${CHAOS_HEADING}\\n\\n- Date: 2026-12-02 04:12 UTC\\n- Commit: e4c61e3 with the changes committed as d451f50\\n- Command: \`npm run chaos\`\\n`,
      ),
    );
    assert.match(areas.get('chaos')!, /3000 events fanned out to 2 endpoints\./);
    assert.doesNotMatch(text, /sections: newest first|older sections are kept/);

    const rows = trendLines(text).map(cells);
    assert.deepEqual(
      rows.map((r) => r.slice(0, 3)),
      [
        ['2026-12-02 14:42', 'ba2fa3b', '`npm run bench -- --only=routing`'],
        ['2026-12-02 04:12', 'e4c61e3', '`npm run chaos`'],
        ['2026-12-02 03:17', 'd0b29b9', '`npm run bench`'],
      ],
    );
    const column = (key: AreaKey) => TREND_COLUMNS.indexOf(AREAS.find((a) => a.key === key)!.trendColumn);
    assert.equal(rows[0]![column('routing')], '1.44 / –');
    assert.equal(rows[1]![column('chaos')], '0 / 95 (1.60 %)');
    // The dropped 03:17 routing section still gives its figure to the Trend row, and its retry figures.
    assert.equal(rows[2]![column('routing')], '9.99 / –');
    assert.equal(rows[2]![column('retry')], '201 / 207 (0)');
    assert.equal(rows[2]![column('chaos')], '');
  });

  it('is converted by the first run that reads it, which then replaces its area', () => {
    const text = updateBenchmarks(legacy, run(0), [section('retry', '### Retry timing accuracy', 'new')]);
    assert.match(areasOf(text).get('retry')!, /- Date: 2026-12-03 00:00 UTC/);
    assert.equal(areasOf(text).get('routing'), areasOf(convertLegacy(legacy)).get('routing'));
    assert.equal(trendLines(text).length, 4);
  });
});

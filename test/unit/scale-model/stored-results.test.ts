import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderScaleModel } from '../../../scripts/scale-model/report.ts';
import type { ScenarioResult } from '../../../scripts/scale-model/run-scenario.ts';
import { storedResults, storeResult, type StoredResult } from '../../../scripts/scale-model/stored-results.ts';
import { UNSHARED_REQUESTS } from './request-figures-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookline-stored-results-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A scenario's figures, as a run records them (only what the report reads is filled in). */
function aResult(key: string, delivered: number, withSamples = true): ScenarioResult {
  return {
    scenario: { key, title: `scenario ${key}`, publishSeconds: 600, drainSeconds: 60 },
    published: delivered,
    delivered,
    duplicates: 0,
    undelivered: 0,
    undeliveredBy: { deadLettered: 0, onItsWay: 0, lost: 0 },
    latencyP50Ms: 150,
    latencyP99Ms: 900,
    meanDeliveriesPerSecond: delivered / 600,
    queueAgePeakSeconds: 1,
    inFlightPeak: 10,
    overLimitRefusals: 0,
    senderPeakConcurrency: 4,
    dynamodb: { tables: {} },
    sweeper: { runs: 11, lagPeakSeconds: 120, longestRunSeconds: 0.2, requeued: 0, expired: 0 },
    handlerErrors: {},
    samples: withSamples
      ? Array.from({ length: 20 }, (_, second) => ({
          second,
          delivered: 100,
          published: 100,
          queueAgeSeconds: 0,
          inFlight: 0,
          senderConcurrency: 1,
        }))
      : [],
  } as unknown as ScenarioResult;
}

const runAt = (date: string, options: string): StoredResult['run'] => ({
  date,
  commit: 'abc1234',
  command: `npm run scale-model -- ${options}`,
  machine: 'test',
});

describe('the scale model’s stored results', () => {
  it('keeps each scenario’s last run, and renders a row per scenario from its own run', () => {
    storeResult({ run: runAt('2026-12-06 10:00 UTC', '--only=spread'), result: aResult('spread', 1000) }, dir);
    storeResult({ run: runAt('2026-12-06 12:00 UTC', '--only=spread'), result: aResult('spread', 6_000_000) }, dir);
    storeResult({ run: runAt('2026-12-06 11:00 UTC', '--only=bulk-replay'), result: aResult('bulk-replay', 9) }, dir);

    const stored = storedResults(['spread', 'one-subscription', 'bulk-replay'], dir);

    assert.deepEqual(
      stored.map((s) => [s.result.scenario.key, s.result.delivered, s.run.date]),
      [
        ['spread', 6_000_000, '2026-12-06 12:00 UTC'],
        ['bulk-replay', 9, '2026-12-06 11:00 UTC'],
      ],
    );
    const markdown = renderScaleModel(stored, 'full', dir, ['spread', 'one-subscription', 'bulk-replay']);
    assert.match(markdown, /\| scenario spread \|.*\| 2026-12-06 12:00, abc1234, `--only=spread` \|/);
    assert.match(markdown, /\| scenario bulk-replay \|.*\| 2026-12-06 11:00, abc1234, `--only=bulk-replay` \|/);
    assert.match(markdown, /Not recorded at full size yet: one-subscription\./);
  });

  it('writes each per-second sample on a line of its own, and reads the record back whole', () => {
    const stored = { run: runAt('2026-12-06 14:00 UTC', '--only=down-an-hour'), result: aResult('down-an-hour', 7) };
    storeResult(stored, dir);
    const text = readFileSync(join(dir, 'down-an-hour.json'), 'utf8');
    const sampleLines = text.split('\n').filter((l) => l.includes('"second":'));
    assert.equal(sampleLines.length, 20);
    assert.ok(sampleLines.every((l) => l.trim().startsWith('{') && l.includes('"senderConcurrency":1}')));
    assert.deepEqual(JSON.parse(text), stored);
    assert.deepEqual(storedResults(['down-an-hour'], dir)[0], stored);
  });

  it('reads a record without samples as one the chart leaves out, its row kept', () => {
    const file = join(dir, 'hanging.json');
    const { samples: _dropped, ...figures } = aResult('hanging', 5);
    writeFileSync(file, JSON.stringify({ run: runAt('2026-12-06 13:00 UTC', '--only=hanging'), result: figures }));

    const stored = storedResults(['hanging', 'spread'], dir);
    assert.deepEqual(stored[0]!.result.samples, []);
    const markdown = renderScaleModel(stored, 'full', dir, ['hanging', 'spread']);
    assert.match(markdown, /\| scenario hanging \|/);
    assert.match(markdown, /Not in the chart \(recorded without per-second samples\): hanging\./);
    const chart = readFileSync(join(dir, 'scale-model-delivered.svg'), 'utf8');
    assert.ok(chart.includes('spread') && !chart.includes('hanging'), 'the chart draws spread alone');
  });

  it('renders the slow lane’s age, both caps and the settled latency of a run that measured them, and older runs as before', () => {
    const older = { ...aResult('hanging', 5), healthyP50Ms: 150, healthyP99Ms: 16_000 } as ScenarioResult;
    const newer = {
      ...aResult('hanging', 5),
      healthyP50Ms: 150,
      healthyP99Ms: 16_000,
      settledHealthyP50Ms: 140,
      settledHealthyP99Ms: 600,
      slowLaneAgePeakSeconds: 17.5,
      senderCaps: { main: 400, slow: 100 },
    } as ScenarioResult;
    const rowOf = (result: ScenarioResult) =>
      renderScaleModel([{ run: runAt('2026-12-06 15:00 UTC', '--only=hanging'), result }], 'full', dir, ['hanging'])
        .split('\n')
        .find((l) => l.startsWith('| scenario hanging |'))!;
    const before = rowOf(older);
    assert.match(before, /\| 150 \/ 900 \(others 150 \/ 16,000\) \| 1\.0 \| 10 \| 4 of 20 \|/);
    const after = rowOf(newer);
    assert.match(
      after,
      /\| 150 \/ 900 \(others 150 \/ 16,000; after the first minute 140 \/ 600\) \| 1\.0 \(slow lane 17\.5\) \| 10 \| 4 of 400 \+ 100 \|/,
    );
  });

  it('renders what each delivery asked for in the runs that metered it, and leaves older runs out of that table', () => {
    const metered = {
      ...aResult('stated-traffic', 2280),
      requests: UNSHARED_REQUESTS,
    } as ScenarioResult;
    const markdown = renderScaleModel(
      [
        { run: runAt('2026-12-07 15:00 UTC', '--only=stated-traffic'), result: metered },
        { run: runAt('2026-12-06 15:00 UTC', '--only=spread'), result: aResult('spread', 10) },
      ],
      'full',
      dir,
      ['stated-traffic', 'spread'],
    );
    assert.match(
      markdown,
      /\| stated-traffic \| 3\.8 \| 3\.000 \(1\.000 \+ 1\.000 \+ 1\.000\) \| 1\.00 \| 3\.00 \| 3\.00 \(events 1\.00, deliveries 1\.00, ingest-manifests 1\.00\) \| 1\.48 \| \$2\.06 \+ \$1\.20 \+ \$0\.60 = \*\*\$3\.86\*\* \|/,
    );
    assert.ok(!/^\| spread \|/m.test(markdown), 'a run recorded before the meter has no row there');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { CostRun } from '../../../scripts/bench/cost.ts';
import type { CostScenario } from '../../../scripts/bench/scenario.ts';
import { call, usage as usageOf } from './usage-fixture.ts';
import { renderCost, renderPublishFloor } from '../../../scripts/bench/cost-report.ts';
import { perDelivery } from '../../../scripts/bench/cost-model.ts';
import type { Usage } from '../../../scripts/bench/sdk-meter.ts';
import { eventKeptFor } from '../../../scripts/bench/storage.ts';

type Item = Record<string, AttributeValue>;
const scenario = (id: CostScenario['id'], more: Partial<CostScenario> = {}): CostScenario => ({
  id,
  name: id,
  fanOut: 1,
  events: 2,
  publish: 'sqs',
  failuresFirst: 0,
  finalStatus: 200,
  ...more,
});
const kept = (rows: Item[]) => ({
  writes: rows.length,
  largestBytes: 0,
  largestOp: 'PutItem',
  kept: new Map(rows.map((r, i) => [String(i), r])),
});

function run(s: CostScenario, eventBytes: number): CostRun {
  const event: Item = { id: { S: 'e' }, pad: { S: 'x'.repeat(eventBytes - 'id'.length - 1 - 'pad'.length) } };
  const items = { events: { ...kept([event, event]), largestBytes: eventBytes } };
  const usage: Usage = {
    ...usageOf({ 'DynamoDB PutItem hookline-events': call({ count: 2, billedRequests: 2, writeUnits: 2 }) }),
    items,
  };
  return {
    scenario: s,
    usage,
    logs: { lines: 0, bytes: 0 },
    cpuMs: 0,
    perDelivery: perDelivery(usage, {}, s.events * s.fanOut, 0),
  };
}

describe('cost report', () => {
  it('says "not measured" with the reason for a scenario the build could not run, and rates the rest', () => {
    const md = renderCost(
      [[run(scenario('fo1-sqs'), 700)]],
      [
        {
          scenario: scenario('fo1-http-batch', { publish: 'http-batch' }),
          reason: 'POST /v1/events/batch answered 404',
        },
      ],
    );
    assert.match(md, /\| fo1-http-batch \| not measured: POST \/v1\/events\/batch answered 404 \|/);
    assert.match(
      md,
      /batch publish over HTTP, 100 events per request: per million deliveries \| ≤ \$1\.90 \| {2}\| not measured: POST \/v1\/events\/batch answered 404 \|/,
    );
    assert.match(md, /first try, fan-out 1, ingest queue: per million deliveries \| ≤ \$1\.75 \| \$0\.63 \| met \|/);
    assert.match(md, /not measured: scenario fo10-sqs not in this run/);
  });

  it('states the endpoint health bookkeeping per delivery: 0 WRU while nothing is written for it, what a health table would cost otherwise', () => {
    assert.match(
      renderCost([[run(scenario('fo1-sqs'), 700)]]),
      /- Endpoint health bookkeeping \(the stats and the dashboard's health view\), 0\.00 WRU: computed at read time/,
    );
    const counted = run(scenario('fo1-sqs'), 700);
    const usage = {
      ...counted.usage,
      calls: {
        ...counted.usage.calls,
        'DynamoDB UpdateItem hookline-subscription-stats': {
          count: 2,
          billedRequests: 2,
          writeUnits: 2,
          readUnits: 0,
          indexWriteUnits: 0,
        },
      },
    };
    assert.match(
      renderCost([[{ ...counted, usage, perDelivery: perDelivery(usage, {}, 2, 0) }]]),
      /health bookkeeping \(the stats and the dashboard's health view\), 1\.00 WRU/,
    );
  });

  it('checks the largest happy-path row against 1 KB and shows the storage arithmetic', () => {
    const md = renderCost([[run(scenario('fo1-sqs'), 1100)]]);
    assert.match(md, /\| events \| 1100 B \| 2 \| `PutItem` \| fo1-sqs \| 2 of 2 writes \| \*\*not met\*\* \|/);
    assert.match(
      md,
      /happy-path rows per delivery \(events, deliveries; first-try scenarios\), the largest \| ≤ 1024 B \(1 KB\) \| 1100 B \(events\) \| \*\*not met\*\* \|/,
    );
    // 1,200 B billed (1,100 + 100 overhead), one row per event, kept as long as retention.ts says.
    assert.ok(
      md.includes(
        `- events: 1.00 row(s) per event × 1200 B × 10⁶ events / 2³⁰ B per GB × ${eventKeptFor().days.toFixed(1)} days`,
      ),
    );
  });
});

describe('the single HTTP publish floor paragraph', () => {
  it('names the floor, the measured figure and how far below the floor the target is', () => {
    const md = renderCost([[run(scenario('fo1-http', { publish: 'http' }), 700)]]);
    assert.match(md, /\*\*The floor of a single publish over HTTP\*\*.* = \*\*\$2\.08 per million\*\*/);
    assert.match(md, /Measured here: \$\d+\.\d\d, of which Lambda/);
    // With the Function URL entry the floor is under the target of ≤ $3.00: no "below it" to state.
    assert.doesNotMatch(md, /below it/);
  });

  it('still states the floor when the HTTP scenario was not run', () => {
    const md = renderPublishFloor(undefined);
    assert.match(md, /= \*\*\$2\.08 per million\*\*/);
    assert.doesNotMatch(md, /Measured here/);
  });

  it('states the floor at a few publishes a second too, where nothing is shared', () => {
    // $2.08 with the hand-off the publish's own ($0.60 for $0.006) and the sender's receive, delete and invocation ($1.00): $3.675.
    assert.match(renderPublishFloor(undefined), /That floor is at volume: .* the floor is \*\*\$3\.6[78]\*\*/);
  });
});

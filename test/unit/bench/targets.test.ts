import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PerDelivery } from '../../../scripts/bench/cost-model.ts';
import { COST_TARGETS, costTargetRows, verdict, verdictText } from '../../../scripts/bench/targets.ts';

const figures = (total: number, more: Partial<PerDelivery> = {}) =>
  ({
    writeUnits: 2,
    sqsRequests: 0.3,
    lambdaInvocations: 0.04,
    ...more,
    dollarsPerMillion: { dynamodb: 0, sqs: 0, lambda: 0, apiGateway: 0, total },
  }) as PerDelivery;

describe('target evaluation', () => {
  it('met at or under the limit, not met above it, not measured without a figure', () => {
    assert.deepEqual(verdict(1.75, 1.75), { kind: 'met' });
    assert.deepEqual(verdict(1.76, 1.75), { kind: 'not met' });
    assert.deepEqual(verdict(undefined, 1.75, 'route 404'), { kind: 'not measured', reason: 'route 404' });
    assert.deepEqual(verdict(Number.NaN, 1.75).kind, 'not measured');
    assert.equal(verdictText({ kind: 'not met' }), '**not met**');
    assert.equal(verdictText({ kind: 'not measured', reason: 'route 404' }), 'not measured: route 404');
  });

  it("holds the issue's table", () => {
    const limit = (scenario: string, figure = 'dollarsPerMillion') =>
      COST_TARGETS.find((t) => t.scenario === scenario && t.figure === figure)?.limit;
    assert.deepEqual(
      [
        limit('fo1-sqs'),
        limit('fo1-sqs', 'writeUnits'),
        limit('fo1-sqs', 'sqsRequests'),
        limit('fo1-sqs', 'lambdaInvocations'),
        limit('fo10-sqs'),
        limit('retry-sqs'),
        limit('dlq-sqs'),
        limit('fo1-http'),
        limit('fo1-http-batch'),
      ],
      [1.75, 2.1, 0.4, 0.05, 1.0, 8, 4.5, 3.0, 1.9],
    );
  });

  it('rates each target against its scenario, with the reason a scenario was not measured', () => {
    const rows = costTargetRows(
      new Map([
        ['fo1-sqs', figures(1.7, { writeUnits: 2.2 })],
        ['fo1-http', figures(3.5)],
      ]),
      new Map([['fo1-http-batch', 'POST /v1/events/batch answered 404']]),
    );
    const by = (what: string) => rows.find((r) => r.what.startsWith(what))!;
    assert.equal(verdictText(by('first try, fan-out 1, ingest queue: per million').verdict), 'met');
    assert.equal(by('first try, fan-out 1, ingest queue: per million').measured, '$1.70');
    assert.equal(verdictText(by('first try, fan-out 1, ingest queue: WRU').verdict), '**not met**');
    assert.equal(verdictText(by('first try, fan-out 1, ingest queue: SQS').verdict), 'met');
    assert.equal(verdictText(by('first try, fan-out 1, single publish').verdict), '**not met**');
    assert.equal(
      verdictText(by('first try, fan-out 1, batch publish').verdict),
      'not measured: POST /v1/events/batch answered 404',
    );
    assert.equal(verdictText(by('first try, fan-out 10').verdict), 'not measured: scenario fo10-sqs not in this run');
  });
});

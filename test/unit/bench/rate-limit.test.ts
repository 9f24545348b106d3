import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drainShare, type RateLimitRun, renderRateLimit } from '../../../scripts/bench/rate-limit.ts';

const run = (fields: Partial<RateLimitRun>): RateLimitRun => ({
  events: 1000,
  limit: 20,
  publishedAs: 'batch',
  maxStartsInOneSecond: 22,
  maxInOneSecond: 22,
  drainSeconds: 55,
  arrivalSpanSeconds: 52,
  requests: 1000,
  limited: { 'DynamoDB UpdateItem rateLimits': 2000 },
  unlimited: {},
  ...fields,
});

describe('the rate-limit bench report', () => {
  it('checks the drain rate against 90 % of the limit and the busiest second of attempt starts against the bound, per way of publishing', () => {
    const md = renderRateLimit([
      run({}),
      run({ publishedAs: 'single', arrivalSpanSeconds: 66.7, maxStartsInOneSecond: 23, maxInOneSecond: 22 }),
    ]);
    const rows = md.split('\n').filter((l) => l.startsWith('| 2'));
    assert.equal(rows.length, 2);
    assert.match(rows[0]!, /\| 96 % \(met\) \|/);
    assert.match(rows[0]!, /100 a request/);
    assert.match(rows[1]!, /\| 75 % \(\*\*not met\*\*\) \|/);
    assert.match(rows[1]!, /^\| 23 \| 22 \(\*\*not met\*\*\) \| 22 \|/);
    assert.match(rows[1]!, /one a request/);
    assert.match(md, /`DynamoDB UpdateItem rateLimits` \| 2\.00 \| 0\.00 \| \+2\.00/);
  });

  it("judges the bound on attempt starts, not on the receiver's arrivals, which it shows beside", () => {
    const md = renderRateLimit([run({ maxStartsInOneSecond: 22, maxInOneSecond: 24 })]);
    const [row] = md.split('\n').filter((l) => l.startsWith('| 2'));
    assert.match(row!, /^\| 22 \| 22 \(met\) \| 24 \|/);
  });

  it('has a row for a bulk replay of dead letters, said as such', () => {
    const md = renderRateLimit([run({}), run({ publishedAs: 'replay', arrivalSpanSeconds: 51 })]);
    const rows = md.split('\n').filter((l) => l.startsWith('| 2'));
    assert.match(rows[1]!, /\| 98 % \(met\) \|/);
    assert.match(rows[1]!, /as dead letters \(a 400 each\), then replayed in bulk/);
  });

  it('measures the drain over the span of arrivals', () => {
    assert.equal(drainShare(run({ events: 300, arrivalSpanSeconds: 15, limit: 20 })), 1);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRICES } from '../../../scripts/bench/prices.ts';
import { singlePublishFloor } from '../../../scripts/bench/publish-floor.ts';

describe('the floor of a single publish over HTTP', () => {
  it('adds the API request, one invocation, three writes and one SQS request at list prices', () => {
    const floor = singlePublishFloor();
    assert.equal(floor.parts.length, 6);
    const expected =
      (PRICES.apiGatewayHttpRequest + PRICES.lambdaRequest + 3 * PRICES.dynamodbWriteRequestUnit + PRICES.sqsRequest) *
      1e6;
    assert.ok(Math.abs(floor.total - expected) < 1e-9, `${floor.total} ≠ ${expected}`);
    assert.ok(Math.abs(floor.total - 3.475) < 1e-9);
    assert.equal(floor.parts.filter((p) => /1 WRU/.test(p.what)).length, 3);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_REQUEST_PRICE, PRICES } from '../../../scripts/bench/prices.ts';
import { singlePublishFloor, unsharedPublishFloor } from '../../../scripts/bench/publish-floor.ts';

describe('the floor of a single publish over HTTP', () => {
  it('adds the API request, one invocation, three writes and a hundredth of an invocation and of an SQS request at list prices', () => {
    const floor = singlePublishFloor();
    assert.equal(floor.parts.length, 6);
    const expected =
      (API_REQUEST_PRICE +
        PRICES.lambdaRequest +
        3 * PRICES.dynamodbWriteRequestUnit +
        (PRICES.lambdaRequest + PRICES.sqsRequest) / 100) *
      1e6;
    assert.ok(Math.abs(floor.total - expected) < 1e-9, `${floor.total} ≠ ${expected}`);
    // The default entry, a Function URL, charges nothing per request: $1.00 less than behind an HTTP API.
    assert.equal(API_REQUEST_PRICE, 0);
    assert.match(floor.parts[0]!.what, /Function URL/);
    // The stream's shared hand-off: $0.006 where a send per publish was $0.40.
    assert.ok(Math.abs(floor.total - 2.081) < 1e-9);
    assert.equal(floor.parts.filter((p) => /1 WRU/.test(p.what)).length, 3);
  });

  it('at one event a stream batch, the fan-out invocation and its send are the publish’s own', () => {
    const alone = singlePublishFloor(1);
    assert.ok(Math.abs(alone.total - (singlePublishFloor().total + 0.594)) < 1e-9, `${alone.total}`);
    assert.match(alone.parts[3]!.what, /of its own/);
    // And the sender's receive, delete and invocation too: $0.40 + $0.40 + $0.20.
    assert.ok(Math.abs(unsharedPublishFloor() - (alone.total + 1.0)) < 1e-9, `${unsharedPublishFloor()}`);
  });
});

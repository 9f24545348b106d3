import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { naivePerMillion, perDelivery } from '../../../scripts/bench/cost-model.ts';
import { API_REQUEST_PRICE, PRICES } from '../../../scripts/bench/prices.ts';
import { call, usage } from './usage-fixture.ts';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

describe('cost model', () => {
  it("prices API requests at the default entry, a Function URL: nothing per request; $1.00 per million at an HTTP API's price", () => {
    const p = perDelivery(usage({}), {}, 10, 10);
    close(p.dollarsPerMillion.apiGateway, 0);
    close(p.dollarsPerMillion.total, 0);
    close(perDelivery(usage({}), {}, 10, 10, PRICES.apiGatewayHttpRequest).dollarsPerMillion.apiGateway, 1.0);
  });

  it('takes another API price when given one (REST, $3.50 per million)', () => {
    close(perDelivery(usage({}), {}, 10, 10, PRICES.apiGatewayRestRequest).dollarsPerMillion.apiGateway, 3.5);
  });

  it('a batch of 100 events in one request costs a hundredth of an API request per delivery', () => {
    const p = perDelivery(usage({}), {}, 100, 1, PRICES.apiGatewayHttpRequest);
    close(p.apiRequests, 0.01);
    close(p.dollarsPerMillion.apiGateway, 0.01);
  });

  it('counts SQS requests as billed (per 64 KB chunk), write units with index writes and refused conditions', () => {
    const u = usage({
      'SQS SendMessageBatch hookline-delivery': call({ count: 1, billedRequests: 2 }),
      'SQS ReceiveMessage hookline-delivery': call({ count: 3, billedRequests: 1 }),
      'DynamoDB PutItem hookline-deliveries': call({ count: 4, writeUnits: 4, indexWriteUnits: 4 }),
    });
    u.conditionFailures = 2;
    const p = perDelivery(u, {}, 4, 0);
    close(p.sqsRequests, 3 / 4);
    close(p.writeUnits, (4 + 4 + 2) / 4);
    close(p.dollarsPerMillion.dynamodb, 2.5 * 0.625);
    close(p.dollarsPerMillion.sqs, 0.75 * 0.4);
  });

  it('charges Lambda per invocation and per GB-second of the function memory', () => {
    const p = perDelivery(usage({}), { sender: { invocations: 1, totalMs: 1000, records: 10 } }, 10, 0);
    close(p.lambdaInvocations, 0.1);
    close(p.lambdaGbSeconds, 0.1 * 0.5);
    close(p.dollarsPerMillion.lambda, 1e6 * (0.1 * PRICES.lambdaRequest + 0.05 * PRICES.lambdaArmGbSecond));
  });

  it('models the straightforward design with the publish path: HTTP per request, batched HTTP, or the ingest queue', () => {
    const base = naivePerMillion(1, 1, 0, 'sqs') - 3 * 0.4 - 0.2;
    close(naivePerMillion(1, 1, 0, 'http'), base + API_REQUEST_PRICE * 1e6 + 0.2);
    close(naivePerMillion(1, 1, 0, 'http', 1, PRICES.apiGatewayHttpRequest), base + 1.0 + 0.2);
    close(naivePerMillion(1, 1, 0, 'http-batch', 100, PRICES.apiGatewayHttpRequest), base + 0.01 + 0.002);
    close(naivePerMillion(1, 1, 0, 'http', 1, PRICES.apiGatewayRestRequest), base + 3.5 + 0.2);
  });
});

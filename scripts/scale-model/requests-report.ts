import { table } from '../bench/benchmarks-file.ts';
import { PRICES } from '../bench/prices.ts';
import { PATH_FUNCTIONS } from '../bench/cost-model.ts';
import { s1 } from './figures.ts';
import type { ScenarioResult } from './run-scenario.ts';
import { usd } from '../bench/stats.ts';

const f2 = (v: number) => v.toFixed(2);
const f3 = (v: number) => v.toFixed(3);

/**
 * What each delivery asked of DynamoDB, SQS and Lambda in the runs that metered it. The point is
 * the rate: a stream batch, an SQS receive and a sender invocation share their cost among what
 * arrived together, so the same delivery costs more at a few a second than at hundreds.
 */
export function renderRequests(results: readonly ScenarioResult[]): string[] {
  const metered = results.filter((r) => r.requests);
  if (metered.length === 0) return [];
  const rows = metered.map((r) => {
    const q = r.requests!;
    const tables = Object.entries(q.wruByTable)
      .map(([t, w]) => `${t} ${f2(w)}`)
      .join(', ');
    return [
      r.scenario.key,
      s1(r.meanDeliveriesPerSecond),
      `${f3(PATH_FUNCTIONS.reduce((a, fn) => a + q.invocations[fn], 0))} (${PATH_FUNCTIONS.map((fn) => f3(q.invocations[fn])).join(' + ')})`,
      q.eventsPerFanOut === undefined ? '–' : f2(q.eventsPerFanOut),
      f2(q.sqsRequests),
      `${f2(q.wru)} (${tables})`,
      f2(q.rru),
      `${usd(q.dollarsPerMillion.dynamodb)} + ${usd(q.dollarsPerMillion.sqs)} + ${usd(q.dollarsPerMillion.lambda)} = **${usd(q.dollarsPerMillion.total)}**`,
    ];
  });
  return [
    '**Requests per delivery at each rate** (what the path’s functions, api, fan-out and sender, asked for while the run was',
    'measured, per delivery received; the scheduled functions are left out, as the cost bench prices them apart; an SQS receive',
    'that returned nothing is left out, a mapping’s idle long polls being a fixed cost; each SQS call counts once, where SQS bills',
    'each 64 KB of its payload, so a send of ten full packs, two or three, is under-counted at high rates; priced at the cost bench’s list prices,',
    `DynamoDB $${(PRICES.dynamodbWriteRequestUnit * 1e6).toFixed(3)} a million WRU and $${(PRICES.dynamodbReadRequestUnit * 1e6).toFixed(3)} RRU,`,
    `SQS $${(PRICES.sqsRequest * 1e6).toFixed(2)} and Lambda $${(PRICES.lambdaRequest * 1e6).toFixed(2)} a million requests; no Lambda duration, no storage):`,
    '',
    table(
      [
        'scenario',
        'delivered/s',
        'Lambda invocations (api + fan-out + sender)',
        'events a fan-out batch',
        'SQS requests',
        'WRU (by table)',
        'RRU',
        'per million deliveries (DynamoDB + SQS + Lambda)',
      ],
      rows,
    ),
    '',
  ];
}

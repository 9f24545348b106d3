import { documentClient } from '#adapters/dynamodb.ts';
import type { TableDef } from '#config/topology.ts';
import { SimDynamoDB } from '../../../scripts/scale-model/sim/dynamodb/sim-dynamodb.ts';
import type { StreamOptions } from '../../../scripts/scale-model/sim/dynamodb/stream.ts';
import { ManualTime } from './manual-time.ts';

const DEF: TableDef = {
  envVar: 'EVENTS_TABLE',
  localName: 'stream-test',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
  indexes: [],
};

/** Table `t` (keys pk, sk) with its stream on, on manual time, and a document client to write it with. */
export function streamedTable(options: StreamOptions = { viewType: 'NEW_AND_OLD_IMAGES' }) {
  const time = new ManualTime();
  const sim = new SimDynamoDB({ time, latencyMs: () => 0 });
  sim.createTable(DEF, 't');
  const stream = sim.enableStream('t', options);
  return { time, sim, stream, db: documentClient(sim.client()) };
}

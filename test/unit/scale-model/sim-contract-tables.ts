/**
 * ContractTables (test/support/contract-table.ts) backed by the simulated DynamoDB instead of
 * dynalite: the same `open(def)` shape, so a store contract runs unchanged on the simulator.
 * Tables are created through the raw CreateTable call, as the dynalite helper does, which
 * exercises the simulator's control plane and AttributeValue path too.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableDef } from '#config/topology.ts';
import { createTableInput } from '#local/provision.ts';
import { SimDynamoDB } from '../../../scripts/scale-model/sim/dynamodb/sim-dynamodb.ts';
import type { SimTime } from '../../../scripts/scale-model/sim/time.ts';

/**
 * Wall-clock time, except that sleeping only moves a private offset forward and resolves at
 * once: the contracts compare timestamps they make from Date.now(), so the simulator's clock
 * must agree with it, while an SDK retry backoff should not cost the suite seconds.
 */
export function skewedWallTime(): SimTime {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    sleep: async (ms) => {
      skew += ms;
    },
  };
}

export interface SimContractTables {
  readonly sim: SimDynamoDB;
  client(): DynamoDBClient;
  open(def: TableDef): Promise<{ readonly table: string; dispose(): Promise<void> }>;
}

export function simContractTables(label: string): SimContractTables {
  // Zero latency: the contracts check behaviour, not timing.
  const sim = new SimDynamoDB({ time: skewedWallTime(), latencyMs: () => 0 });
  const client = sim.client();
  return {
    sim,
    client: () => client,
    async open(def) {
      const table = `hookline-${label}-${randomUUID()}`;
      await client.send(new CreateTableCommand({ ...createTableInput(def), TableName: table }));
      return { table, dispose: async () => void (await client.send(new DeleteTableCommand({ TableName: table }))) };
    },
  };
}

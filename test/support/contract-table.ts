/**
 * A real DynamoDB API for the store contracts: the endpoint in AWS_ENDPOINT_URL_DYNAMODB when
 * set (CI runs the contracts against Amazon's DynamoDB Local that way), else an in-process
 * dynalite on a temp dir; each case gets a fresh table built from the topology, deleted after.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { TableDef } from '#config/topology.ts';
import { createTableInput } from '#local/provision.ts';

export interface ContractTables {
  /** The client, once the suite's `before` has run. */
  client(): DynamoDBClient;
  /** A fresh table shaped like `def`, active (its indexes too), and how to drop it. */
  open(def: TableDef): Promise<{ readonly table: string; dispose(): Promise<void> }>;
}

/** Registers the suite's before/after hooks; call it at the top of a test file. */
export function contractTables(label: string): ContractTables {
  let client: DynamoDBClient | undefined;
  let server: Server | undefined;
  let dataDir: string | undefined;

  before(async () => {
    let endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    if (!endpoint) {
      dataDir = mkdtempSync(join(tmpdir(), `hookline-${label}-`));
      const dynamo = dynalite({ path: dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
      server = dynamo;
      await new Promise<void>((resolve, reject) => {
        dynamo.once('error', reject);
        dynamo.listen(0, '127.0.0.1', () => resolve());
      });
      endpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
    }
    client = new DynamoDBClient({
      endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      // Emulators accept any key; real ones from the environment win when present.
      credentials: {
        accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
        secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
      },
    });
  });

  after(async () => {
    client?.destroy();
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const live = () => {
    if (!client) throw new Error('contractTables: the client exists once the suite has started');
    return client;
  };

  /** Immediate on dynalite; DynamoDB Local may take a moment, for the indexes too. */
  async function untilActive(table: string): Promise<void> {
    for (let tries = 0; tries < 100; tries++) {
      const { Table } = await live().send(new DescribeTableCommand({ TableName: table }));
      if (
        Table?.TableStatus === 'ACTIVE' &&
        (Table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`table ${table} did not become active`);
  }

  return {
    client: live,
    async open(def) {
      const table = `hookline-${label}-${randomUUID()}`;
      await live().send(new CreateTableCommand({ ...createTableInput(def), TableName: table }));
      await untilActive(table);
      return { table, dispose: async () => void (await live().send(new DeleteTableCommand({ TableName: table }))) };
    },
  };
}

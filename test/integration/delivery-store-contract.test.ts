/**
 * The DeliveryStore contract (test/support/delivery-store-contract.ts) against the DynamoDB
 * adapter, on a real DynamoDB API: the endpoint in AWS_ENDPOINT_URL_DYNAMODB when set (CI runs
 * this file against Amazon's DynamoDB Local that way), else an in-process dynalite on a temp
 * dir. Each case gets its own table, created from the topology like the real one and deleted
 * after. The in-memory half runs as a unit test (test/unit/support/memory-delivery-store.test.ts).
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbDeliveryStore } from '#adapters/dynamodb-delivery-store.ts';
import { TABLES } from '#config/topology.ts';
import { createTableInput } from '#local/provision.ts';
import assert from 'node:assert/strict';
import { CONTRACT_CASES, deliveryStoreContract } from '#test/delivery-store-contract.ts';

let client: DynamoDBClient;
let server: Server | undefined;
let dataDir: string | undefined;

before(async () => {
  let endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  if (!endpoint) {
    dataDir = mkdtempSync(join(tmpdir(), 'hookline-contract-'));
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
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local' },
  });
});

after(async () => {
  client?.destroy();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Waits until the table and its indexes answer (immediate on dynalite; DynamoDB Local may take a moment). */
async function untilActive(table: string): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus === 'ACTIVE' && (Table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`table ${table} did not become active`);
}

let opened = 0;
deliveryStoreContract('DynamoDB', async (nowMs) => {
  opened++;
  const table = `hookline-contract-${randomUUID()}`;
  await client.send(new CreateTableCommand({ ...createTableInput(TABLES.deliveries), TableName: table }));
  await untilActive(table);
  return {
    store: new DynamoDbDeliveryStore(documentClient(client), table, () => nowMs),
    dispose: async () => {
      await client.send(new DeleteTableCommand({ TableName: table }));
    },
  };
});

// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, CONTRACT_CASES));

/**
 * The IngestManifestStore contract (test/support/ingest-manifest-store-contract.ts) against the
 * DynamoDB adapter on a real DynamoDB API (AWS_ENDPOINT_URL_DYNAMODB when set, else an
 * in-process dynalite), each case on a table of its own built from the topology.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbIngestManifestStore } from '#adapters/dynamodb-ingest-manifest-store.ts';
import { TABLES } from '#config/topology.ts';
import { contractTables } from '#test/contract-table.ts';
import { ingestManifestStoreContract, MANIFEST_CONTRACT_CASES } from '#test/ingest-manifest-store-contract.ts';

const tables = contractTables('manifest-contract');

let opened = 0;
ingestManifestStoreContract('DynamoDB', async () => {
  opened++;
  const { table, dispose } = await tables.open(TABLES.ingestManifests);
  return { store: new DynamoDbIngestManifestStore(documentClient(tables.client()), table), dispose };
});
// Not vacuous: every case of the contract ran against a table of its own.
after(() => assert.equal(opened, MANIFEST_CONTRACT_CASES));

/** The in-memory half of the IngestManifestStore contract; the DynamoDB half is test/integration/ingest-manifest-store-contract.test.ts. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { InMemoryIngestManifestStore } from '#test/fakes.ts';
import { ingestManifestStoreContract, MANIFEST_CONTRACT_CASES } from '#test/ingest-manifest-store-contract.ts';

let opened = 0;
ingestManifestStoreContract('in memory', async () => {
  opened++;
  return { store: new InMemoryIngestManifestStore(), dispose: async () => {} };
});
// Not vacuous: every case of the contract ran against a store of its own.
after(() => assert.equal(opened, MANIFEST_CONTRACT_CASES));

/**
 * The store contracts (test/support/*-contract.ts) that test/integration/*-contract.test.ts run
 * against dynalite, here run against the simulated DynamoDB with the real adapters on top: if
 * the simulator's semantics drift from DynamoDB's where Hookline relies on them, these fail.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbEventTypeStore } from '#adapters/dynamodb-event-type-store.ts';
import { DynamoDbIdempotencyStore } from '#adapters/dynamodb-idempotency-store.ts';
import { DynamoDbIngestManifestStore } from '#adapters/dynamodb-ingest-manifest-store.ts';
import { DynamoDbNoticeStore } from '#adapters/dynamodb-notice-store.ts';
import { TABLES } from '#config/topology.ts';
import { ATTEMPT_CONTRACT_CASES, attemptStoreContract } from '#test/attempt-store-contract.ts';
import { CONTRACT_CASES, deliveryStoreContract } from '#test/delivery-store-contract.ts';
import { eventContractSubject, eventRowContract } from '#test/event-row-contract.ts';
import { EVENT_CONTRACT_CASES, eventStoreContract } from '#test/event-store-contract.ts';
import { EVENT_TYPE_CONTRACT_CASES, eventTypeStoreContract } from '#test/event-type-store-contract.ts';
import { IDEMPOTENCY_CONTRACT_CASES, idempotencyStoreContract } from '#test/idempotency-store-contract.ts';
import { ingestManifestStoreContract, MANIFEST_CONTRACT_CASES } from '#test/ingest-manifest-store-contract.ts';
import { NOTICE_CONTRACT_CASES, noticeStoreContract } from '#test/notice-store-contract.ts';
import { ROUTING_CONTRACT_CASES, routingContract } from '#test/routing-contract.ts';
import {
  attemptContractSubject,
  deliveryContractSubject,
  routingContractSubject,
} from '#test/dynamodb-contract-subjects.ts';
import { simContractTables } from './sim-contract-tables.ts';

const tables = simContractTables('sim');
const opened = {
  delivery: 0,
  event: 0,
  attempt: 0,
  idempotency: 0,
  manifest: 0,
  notice: 0,
  routing: 0,
  eventType: 0,
};

deliveryStoreContract('simulated DynamoDB', async () => {
  opened.delivery++;
  return deliveryContractSubject(tables);
});

eventStoreContract('simulated DynamoDB', async () => {
  opened.event++;
  return eventContractSubject(tables);
});

attemptStoreContract('simulated DynamoDB', async () => {
  opened.attempt++;
  return attemptContractSubject(tables);
});

idempotencyStoreContract('simulated DynamoDB', async () => {
  opened.idempotency++;
  const { table, dispose } = await tables.open(TABLES.idempotencyKeys);
  return { store: new DynamoDbIdempotencyStore(documentClient(tables.client()), table), dispose };
});

ingestManifestStoreContract('simulated DynamoDB', async () => {
  opened.manifest++;
  const { table, dispose } = await tables.open(TABLES.ingestManifests);
  return { store: new DynamoDbIngestManifestStore(documentClient(tables.client()), table), dispose };
});

noticeStoreContract('simulated DynamoDB', async () => {
  opened.notice++;
  const { table, dispose } = await tables.open(TABLES.notices);
  return { store: new DynamoDbNoticeStore(documentClient(tables.client()), table), dispose };
});

eventTypeStoreContract('simulated DynamoDB', async () => {
  opened.eventType++;
  const { table, dispose } = await tables.open(TABLES.eventTypes);
  return { store: new DynamoDbEventTypeStore(documentClient(tables.client()), table), dispose };
});

routingContract('simulated DynamoDB', async () => {
  opened.routing++;
  return routingContractSubject(tables);
});

// What only the events table shows: the simulator's marshalled path (GetItem/PutItem/UpdateItem on the base client).
eventRowContract('simulated DynamoDB', tables);

// Not vacuous: every case of every contract ran against tables of its own.
after(() =>
  assert.deepEqual(opened, {
    delivery: CONTRACT_CASES,
    event: EVENT_CONTRACT_CASES,
    attempt: ATTEMPT_CONTRACT_CASES,
    idempotency: IDEMPOTENCY_CONTRACT_CASES,
    manifest: MANIFEST_CONTRACT_CASES,
    notice: NOTICE_CONTRACT_CASES,
    routing: ROUTING_CONTRACT_CASES,
    eventType: EVENT_TYPE_CONTRACT_CASES,
  }),
);

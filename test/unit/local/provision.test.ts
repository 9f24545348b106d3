import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  DynamoDBServiceException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLES } from '#config/topology.ts';
import { ensureTable, waitForActive } from '#local/provision.ts';

const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
// This one client only: the unit tests share a process, and another file's real client must stay real.
const ddb = mockClient(client);
/** Polls without real waiting: these tests are about the order of calls, not the clock. */
const FAST = { timeoutMs: 1_000, intervalMs: 1 };

function serviceError(name: string, message = name) {
  return new DynamoDBServiceException({ name, message, $fault: 'client', $metadata: {} });
}
const notFound = () => serviceError('ResourceNotFoundException');
const names = () => ddb.calls().map((c) => (c.args[0] as { constructor: { name: string } }).constructor.name);

describe('provisioning a table: ACTIVE first, then TTL', () => {
  beforeEach(() => ddb.reset());
  after(() => ddb.restore());

  it('creates a missing table under its prefixed name, polls DescribeTable until ACTIVE, and only then enables TTL', async () => {
    ddb
      .on(DescribeTableCommand)
      .rejectsOnce(notFound())
      .resolvesOnce({ Table: { TableStatus: 'CREATING' } })
      .resolvesOnce({ Table: { TableStatus: 'CREATING' } })
      .resolves({ Table: { TableStatus: 'ACTIVE' } });
    ddb.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    await ensureTable(client, TABLES.events, 'run7', FAST);

    assert.deepEqual(names(), [
      'DescribeTableCommand',
      'CreateTableCommand',
      'DescribeTableCommand',
      'DescribeTableCommand',
      'DescribeTableCommand',
      'DescribeTimeToLiveCommand',
      'UpdateTimeToLiveCommand',
    ]);
    assert.equal(ddb.commandCalls(CreateTableCommand)[0]!.args[0].input.TableName, 'run7-hookline-events');
    assert.deepEqual(ddb.commandCalls(UpdateTimeToLiveCommand)[0]!.args[0].input, {
      TableName: 'run7-hookline-events',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('on a restart, a table whose TTL is already enabled is left as it is', async () => {
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
    ddb
      .on(DescribeTimeToLiveCommand)
      .resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' } });
    await ensureTable(client, TABLES.deliveries, '', FAST);
    assert.equal(ddb.commandCalls(CreateTableCommand).length, 0);
    assert.equal(ddb.commandCalls(UpdateTimeToLiveCommand).length, 0);
  });

  it('a table without a TTL attribute gets no TTL calls', async () => {
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
    await ensureTable(client, TABLES.subscriptions, '', FAST);
    assert.deepEqual(names(), ['DescribeTableCommand', 'DescribeTableCommand']);
  });

  it("ignores only the emulator's UnknownOperationException (dynalite has no TTL); any other refusal is an error", async () => {
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
    ddb.on(DescribeTimeToLiveCommand).resolves({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    ddb.on(UpdateTimeToLiveCommand).rejects(serviceError('UnknownOperationException'));
    await ensureTable(client, TABLES.attempts, '', FAST);

    ddb.on(UpdateTimeToLiveCommand).rejects(serviceError('ValidationException', 'Table is being created'));
    await assert.rejects(ensureTable(client, TABLES.attempts, '', FAST), /Table is being created/);
    ddb
      .on(UpdateTimeToLiveCommand)
      .rejects(serviceError('AccessDeniedException', 'not authorized to perform dynamodb:UpdateTimeToLive'));
    await assert.rejects(ensureTable(client, TABLES.attempts, '', FAST), /UpdateTimeToLive/);
  });

  it('waits for the indexes as well as the table', async () => {
    const gsi = (IndexStatus: 'CREATING' | 'ACTIVE') => ({
      Table: { TableStatus: 'ACTIVE' as const, GlobalSecondaryIndexes: [{ IndexName: 'active', IndexStatus }] },
    });
    ddb.on(DescribeTableCommand).resolvesOnce(gsi('CREATING')).resolves(gsi('ACTIVE'));
    await waitForActive(client, 'hookline-deliveries', FAST);
    assert.equal(ddb.commandCalls(DescribeTableCommand).length, 2);
  });

  it('gives up with a clear error when a table stays CREATING past the bound', async () => {
    ddb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'CREATING' } });
    await assert.rejects(
      waitForActive(client, 'hookline-events', { timeoutMs: 30, intervalMs: 10 }),
      /table hookline-events is still CREATING after 30 ms/,
    );
    assert.ok(ddb.commandCalls(DescribeTableCommand).length >= 2, 'it polled');
  });
});

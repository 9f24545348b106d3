import { feedTableName } from '#local/change-feed.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TABLES } from '#config/topology.ts';
import { externalEndpoints, startEmulators, type Emulators } from '#local/emulators.ts';
import { startRuntime } from '#local/runtime.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/**
 * Endpoints given from outside (what AWS_ENDPOINT_URL_* set): here a dynalite and a fauxqs of
 * this test's own stand in for DynamoDB Local, LocalStack or an account. Two runtimes share
 * them at once under different HOOKLINE_RESOURCE_PREFIXes.
 */
describe('external endpoints and resource prefixes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-external-'));
  let dynamo: Emulators;
  let aws: Emulators;
  let a: LocalStack;
  let b: LocalStack;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  before(async () => {
    // An external endpoint gets its credentials from the SDK chain, as from a user's shell: these.
    process.env.AWS_ACCESS_KEY_ID ??= 'ext';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'ext';
    dynamo = await startEmulators(join(dir, 'ext-dynamodb'), new Set(['dynamodb']));
    aws = await startEmulators(join(dir, 'ext-aws'), new Set(['sqs', 's3']));
    a = await startLocalStack({ endpoints: { dynamodb: dynamo.endpoints.dynamodb! }, resourcePrefix: 'run-a' });
    b = await startLocalStack({
      endpoints: { dynamodb: dynamo.endpoints.dynamodb!, sqs: aws.endpoints.sqs!, s3: aws.endpoints.s3! },
      resourcePrefix: 'run-b',
    });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await aws?.stop();
    await dynamo?.stop();
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('starts an embedded emulator only for the services not given', () => {
    assert.deepEqual(a.runtime.embedded, { dynamodb: false, sqs: true, s3: true });
    assert.equal(a.runtime.endpoints.dynamodb, dynamo.endpoints.dynamodb);
    assert.equal(a.runtime.endpoints.sqs, a.runtime.endpoints.s3, 'the embedded fauxqs serves both');
    assert.notEqual(a.runtime.endpoints.sqs, aws.endpoints.sqs);
    assert.deepEqual(
      b.runtime.embedded,
      { dynamodb: false, sqs: false, s3: false },
      'everything given: no emulator at all',
    );
    assert.deepEqual(
      [b.runtime.endpoints.dynamodb, b.runtime.endpoints.sqs, b.runtime.endpoints.s3],
      [dynamo.endpoints.dynamodb, aws.endpoints.sqs, aws.endpoints.s3],
    );
    const file = JSON.parse(readFileSync(join(b.runtime.dataDir, 'runtime.json'), 'utf8'));
    assert.deepEqual(
      [file.version, file.dynamodb, file.sqs, file.s3, file.resourcePrefix],
      [2, dynamo.endpoints.dynamodb, aws.endpoints.sqs, aws.endpoints.s3, 'run-b'],
    );
  });

  it('provisions every table, queue and bucket under its prefix, and hands the handlers those names', async () => {
    const db = new DynamoDBClient({ ...LOCAL, endpoint: dynamo.endpoints.dynamodb! });
    const sqs = new SQSClient({ ...LOCAL, endpoint: aws.endpoints.sqs! });
    const s3 = new S3Client({ ...LOCAL, endpoint: aws.endpoints.s3!, forcePathStyle: true });
    try {
      const tables = (await db.send(new ListTablesCommand({}))).TableNames ?? [];
      // The topology's tables and the local runtime's change feed (the events stream's stand-in).
      for (const p of ['run-a', 'run-b']) {
        for (const def of Object.values(TABLES))
          assert.ok(tables.includes(`${p}-${def.localName}`), `${p}-${def.localName}`);
        assert.ok(tables.includes(feedTableName(p)), feedTableName(p));
      }
      assert.equal(tables.length, 2 * (Object.keys(TABLES).length + 1), 'nothing unprefixed');
      const queues = ((await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [])
        .map((u) => u.split('/').pop())
        .sort();
      assert.deepEqual(queues, [
        'run-b-hookline-delivery',
        'run-b-hookline-delivery-redrive',
        'run-b-hookline-delivery-slow',
        'run-b-hookline-delivery-slow-redrive',
        'run-b-hookline-ingest',
        'run-b-hookline-ingest-redrive',
      ]);
      assert.deepEqual(
        (await s3.send(new ListBucketsCommand({}))).Buckets?.map((x) => x.Name),
        ['run-b-hookline-archive'],
      );
    } finally {
      db.destroy();
      sqs.destroy();
      s3.destroy();
    }
    assert.equal(a.runtime.env.DELIVERIES_TABLE, 'run-a-hookline-deliveries');
    assert.equal(b.runtime.env.ARCHIVE_BUCKET, 'run-b-hookline-archive');
    assert.match(b.runtime.env.DELIVERY_QUEUE_URL!, /run-b-hookline-delivery$/);
  });

  it('two runtimes on one endpoint each deliver their own events and see only their own subscriptions', async () => {
    const subA = await a.subscribe('/a', { eventTypes: ['ext.test'] });
    const subB = await b.subscribe('/b', { eventTypes: ['ext.test'] });
    const [pa, pb] = await Promise.all([a.publish('ext.test', { to: 'a' }), b.publish('ext.test', { to: 'b' })]);
    assert.deepEqual([pa.deliveryIds.length, pb.deliveryIds.length], [1, 1]);
    await Promise.all([
      a.waitForState(pa.deliveryIds[0]!, ['delivered']),
      b.waitForState(pb.deliveryIds[0]!, ['delivered']),
    ]);
    assert.ok(a.receiver.on('/a').every((r) => r.verified) && a.receiver.distinctCount('/a') === 1);
    assert.ok(b.receiver.on('/b').every((r) => r.verified) && b.receiver.distinctCount('/b') === 1);
    const ids = async (s: LocalStack) =>
      (await s.api.get('/v1/subscriptions?limit=100')).body.items.map((x: { id: string }) => x.id);
    assert.deepEqual(await ids(a), [subA.id]);
    assert.deepEqual(await ids(b), [subB.id]);
  });

  it('refuses an invalid prefix before starting anything', async () => {
    await assert.rejects(
      startRuntime({ dataDir: join(dir, 'bad'), port: 0, resourcePrefix: 'Team_A', logLevel: 'SILENT' }),
      /HOOKLINE_RESOURCE_PREFIX "Team_A" is not valid/,
    );
  });
});

it('a test stack follows the environment: the AWS_ENDPOINT_URL_* endpoints under a prefix of its own, else the embedded emulators as named today', async () => {
  const stack = await startLocalStack();
  try {
    const given = externalEndpoints();
    assert.equal(stack.runtime.embedded.dynamodb, !given.dynamodb);
    if (given.dynamodb) assert.equal(stack.runtime.endpoints.dynamodb, given.dynamodb);
    assert.equal(stack.runtime.resourcePrefix === '', Object.keys(given).length === 0);
    assert.equal(
      stack.runtime.env.DELIVERIES_TABLE,
      stack.runtime.resourcePrefix ? `${stack.runtime.resourcePrefix}-hookline-deliveries` : 'hookline-deliveries',
    );
  } finally {
    await stack.stop();
  }
});

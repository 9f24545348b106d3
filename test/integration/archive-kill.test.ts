import assert from 'node:assert/strict';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { BUCKETS, TABLES } from '#config/topology.ts';
import { startRuntime, type Runtime } from '#local/runtime.ts';
import { apiClient } from '#test/api-client.ts';
import { idCounts, readArchive } from '#test/archive.ts';
import { startChildRuntime, type ChildRuntime } from '#test/child-runtime.ts';
import { TestReceiver } from '#test/receiver.ts';
import { waitFor } from '#test/wait.ts';

const EVENTS = 400;
const SUBSCRIPTIONS = 2;
const DELIVERIES = EVENTS * SUBSCRIPTIONS;
const BATCH = 20;
const ADMIN_KEY = 'hk_admin_archive_kill_test_0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hookline-archive-kill-'));
const env = {
  HOOKLINE_DATA_DIR: dataDir,
  HOOKLINE_ADMIN_KEY: ADMIN_KEY,
  HOOKLINE_RETENTION_DELIVERED_DAYS: '0',
  // Delivered rows are archived here (off by default: TTL deletes them), so the archive has both kinds.
  HOOKLINE_ARCHIVE_DELIVERED: '1',
  HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0',
  HOOKLINE_ARCHIVE_BATCH_SIZE: String(BATCH),
  // A killed run holds the lock until it expires: keep that short here (default 60 s).
  HOOKLINE_ARCHIVE_LOCK_SECONDS: '3',
};
let child: ChildRuntime | undefined;
let runtime: Runtime | undefined;
const receiver = new TestReceiver();

after(async () => {
  child?.process.kill('SIGKILL');
  await runtime?.stop();
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it(`archival SIGKILLed midway and run again: all ${DELIVERIES} deliveries archived exactly once, none left, none lost`, {
  timeout: 170_000,
}, async (t) => {
  await receiver.start();
  child = await startChildRuntime(env);
  const api = apiClient(child.url, ADMIN_KEY);
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const res = await api.post('/v1/subscriptions', { url: `${receiver.url}/kill-${i}`, eventTypes: ['kill.test'] });
    assert.equal(res.status, 201);
  }
  const deliveryIds: string[] = [];
  for (let i = 0; i < EVENTS; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: 20 }, (_, j) => api.post('/v1/events', { type: 'kill.test', payload: { n: i + j } })),
    );
    deliveryIds.push(...batch.flatMap((r) => r.body.deliveryIds));
  }
  assert.equal(deliveryIds.length, DELIVERIES);
  await waitFor('every delivery delivered', () => receiver.distinctCount() >= DELIVERIES, 90_000, 200);
  await waitFor(
    'every delivery recorded',
    async () => (await api.get(`/v1/deliveries/${deliveryIds[DELIVERIES - 1]}`)).body.state === 'delivered',
    10_000,
  );

  // Start the daily run through the local Lambda Invoke API (asynchronously, as EventBridge does), then kill the process mid-run.
  const endpoints = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
    lambda: string;
    lambdaToken: string;
    s3: string;
  };
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: endpoints.s3,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const started = await fetch(`${endpoints.lambda}/2015-03-31/functions/archiver/invocations`, {
    method: 'POST',
    headers: {
      'x-amz-invocation-type': 'Event',
      'x-hookline-invoke-token': endpoints.lambdaToken,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ action: 'archive' }),
  });
  assert.equal(started.status, 202);
  const expectedObjects = DELIVERIES / BATCH;
  const objectsAtKill = await waitFor(
    'a third of the archive written',
    async () => {
      const n = (await s3.send(new ListObjectsV2Command({ Bucket: BUCKETS.archive.localName }))).KeyCount ?? 0;
      return n >= expectedObjects / 3 ? n : undefined;
    },
    60_000,
    20,
  );
  child.process.kill('SIGKILL');
  await child.exited;
  s3.destroy();

  // Restart on the same data: what survived the kill, then the re-run.
  runtime = await startRuntime({
    dataDir,
    port: 0,
    logLevel: 'SILENT',
    adminKey: ADMIN_KEY,
    env: Object.fromEntries(
      Object.entries(env).filter(([k]) => k !== 'HOOKLINE_DATA_DIR' && k !== 'HOOKLINE_ADMIN_KEY'),
    ),
    scheduleIntervalMs: { sweeper: 3_600_000, replay: 3_600_000 },
  });
  const survived = await readArchive(runtime.clients.s3);
  const unfinished =
    (await runtime.clients.dynamodb.send(new ScanCommand({ TableName: TABLES.archiveBatches.localName }))).Items ?? [];
  const batchesLeft = unfinished.filter((i) => i.objectKey?.S !== '#lock');
  const afterKill = idCounts(survived);
  t.diagnostic(
    `killed with ${objectsAtKill}+ objects listed; after restart: ${survived.length} objects holding ${afterKill.size} deliveries, ${batchesLeft.length} unfinished batch(es) (${batchesLeft.map((b) => b.phase?.S).join(', ')}), lock ${unfinished.length > batchesLeft.length ? 'still held' : 'free'}`,
  );
  assert.ok(survived.length < expectedObjects, 'the kill landed before the run finished');
  assert.ok(
    [...afterKill.values()].every((n) => n === 1),
    'no duplicate even in the interrupted state',
  );

  const report = await waitFor(
    'the re-run to get the lock',
    async () => {
      const r = (await runtime!.invoke('archiver', { action: 'archive' })) as { kind: string };
      return r.kind === 'busy' ? undefined : r;
    },
    20_000,
    500,
  );
  t.diagnostic(`re-run: ${JSON.stringify(report)}`);
  assert.equal((report as { kind: string }).kind, 'done');

  const objects = await readArchive(runtime.clients.s3);
  const counts = idCounts(objects);
  const missing = deliveryIds.filter((id) => !counts.has(id));
  const duplicated = deliveryIds.filter((id) => (counts.get(id) ?? 0) > 1);
  t.diagnostic(
    `final: ${objects.length} objects, ${counts.size} deliveries archived, ${missing.length} missing, ${duplicated.length} duplicated`,
  );
  assert.deepEqual(missing, [], 'nothing lost');
  assert.deepEqual(duplicated, [], 'nothing duplicated');
  assert.equal(counts.size, DELIVERIES);
  assert.ok(objects.every((o) => o.records.length <= BATCH));

  const local = apiClient(runtime.url, ADMIN_KEY);
  const statuses = await Promise.all(deliveryIds.map(async (id) => (await local.get(`/v1/deliveries/${id}`)).status));
  assert.ok(
    statuses.every((s) => s === 404),
    'every archived row deleted',
  );
  const manifests = (
    await runtime.clients.dynamodb.send(new ScanCommand({ TableName: TABLES.archiveBatches.localName }))
  ).Count;
  assert.equal(manifests, 0, 'no unfinished batch and no lock left');
});

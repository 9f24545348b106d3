import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLES } from '#config/topology.ts';
import { startEmulators } from '#local/emulators.ts';
import { createTableInput, waitForActive } from '#local/provision.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-start-'));
  dirs.push(dir);
  return dir;
};

interface Started {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `body` against DynamoDB in the data folder `dir`, as the runtime would find it, with no
 * runtime: the emulators stopped whatever happens (left listening, they would keep this test
 * file from ever ending).
 */
async function withLocalDynamo(dir: string, body: (db: DynamoDBClient) => Promise<void>): Promise<void> {
  const emulators = await startEmulators(dir, new Set(['dynamodb']));
  const db = new DynamoDBClient({
    endpoint: emulators.endpoints.dynamodb!,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await body(db);
  } finally {
    db.destroy();
    await emulators.stop();
  }
}

/**
 * Runs `npm start`'s entry point (local/main.ts) with `env`; once the banner is out (or the
 * process has ended) it is stopped with SIGTERM, as Ctrl+C would.
 */
function start(env: Record<string, string>): Promise<Started> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'local/main.ts')],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          PORT: '0',
          HOOKLINE_LOG_LEVEL: 'SILENT',
          ...env,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('Press Ctrl+C to stop.')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe('npm start: the admin key', () => {
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('refuses a HOOKLINE_ADMIN_KEY shorter than 24 characters before starting anything, saying why', async () => {
    const dir = dataDir();
    const run = await start({ HOOKLINE_DATA_DIR: dir, HOOKLINE_ADMIN_KEY: 'too-short-key' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /the admin key in HOOKLINE_ADMIN_KEY is 13 characters long; it must be at least 24/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'a message, not a stack trace');
    assert.doesNotMatch(run.stdout, /Hookline is running/);
  });

  it('refuses a short key in the data folder, naming the file', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'admin-key'), 'hk_admin_short\n', { mode: 0o600 });
    const run = await start({ HOOKLINE_DATA_DIR: dir });
    assert.equal(run.code, 1);
    assert.ok(
      run.stderr.includes(
        `the admin key in ${join(dir, 'admin-key')} is 14 characters long; it must be at least 24: delete the file`,
      ),
      run.stderr,
    );
  });

  it('does not print a key that came from HOOKLINE_ADMIN_KEY, and says where it came from', async () => {
    const dir = dataDir();
    const key = 'hk_admin_from_the_environment_0123456789';
    const run = await start({ HOOKLINE_DATA_DIR: dir, HOOKLINE_ADMIN_KEY: key });
    assert.match(run.stdout, /Hookline is running locally/, run.stderr);
    assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key), 'the key is nowhere in the output');
    assert.match(run.stdout, /Admin key {2}from HOOKLINE_ADMIN_KEY \(not shown\)/);
    assert.equal(run.code, 0);
  });

  it('prints a generated key with the file that keeps it; runtime.json is owner-only and carries the Invoke token', async () => {
    const dir = dataDir();
    const lines: string[] = [];
    const run = await new Promise<Started>((done, fail) => {
      const child = spawn(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join(ROOT, 'local/main.ts')],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '/tmp',
            PORT: '0',
            HOOKLINE_LOG_LEVEL: 'SILENT',
            HOOKLINE_DATA_DIR: dir,
          },
        },
      );
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        // Once: the stop removes runtime.json, and its own output arrives as more chunks.
        if (lines.length === 0 && stdout.includes('Press Ctrl+C to stop.')) {
          // While it runs: what the CLI will read.
          const file = join(dir, 'runtime.json');
          lines.push(
            (statSync(file).mode & 0o777).toString(8),
            JSON.parse(readFileSync(file, 'utf8')).lambdaToken ?? '',
          );
          child.kill('SIGTERM');
        }
      });
      child.once('error', fail);
      child.once('close', (code) => done({ code, stdout, stderr: '' }));
    });
    const key = readFileSync(join(dir, 'admin-key'), 'utf8').trim();
    assert.ok(key.length >= 24);
    assert.ok(run.stdout.includes(`Admin key  ${key}   (kept in ${dir}/admin-key)`), run.stdout);
    assert.equal(lines[0], '600');
    assert.match(lines[1]!, /^[A-Za-z0-9_-]{43,}$/);
  });
});

describe('npm start: a data folder of an older layout', () => {
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is refused at start-up with what differs and what to do, and nothing in it is read, created or changed', async () => {
    const dir = dataDir();
    // The deliveries table as the unsharded layout created it: a per-subscription index on subscriptionId.
    const current = createTableInput(TABLES.deliveries);
    await withLocalDynamo(dir, async (db) => {
      await db.send(
        new CreateTableCommand({
          ...current,
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          AttributeDefinitions: [
            { AttributeName: 'id', AttributeType: 'S' },
            { AttributeName: 'subscriptionId', AttributeType: 'S' },
            { AttributeName: 'createdAt', AttributeType: 'S' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'bySubscription',
              KeySchema: [
                { AttributeName: 'subscriptionId', KeyType: 'HASH' },
                { AttributeName: 'createdAt', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'KEYS_ONLY' },
            },
          ],
        }),
      );
      await waitForActive(db, current.TableName!);
      await db.send(
        new PutItemCommand({
          TableName: current.TableName!,
          Item: {
            id: { S: 'dlv_old' },
            subscriptionId: { S: 'sub_old' },
            createdAt: { S: '2026-11-30T00:00:00.000Z' },
            state: { S: 'pending' },
          },
        }),
      );
    });

    const run = await start({ HOOKLINE_DATA_DIR: dir });

    assert.equal(run.code, 1);
    assert.ok(
      run.stderr.includes(
        `hookline: the tables in ${dir} were written by another version of Hookline, so nothing was read or changed`,
      ),
      run.stderr,
    );
    assert.match(
      run.stderr,
      /table hookline-deliveries is keyed on id; this version keys it on subscriptionShard, listKey \(sort\)/,
    );
    assert.match(
      run.stderr,
      /table hookline-deliveries has index bySubscription on subscriptionId, createdAt \(sort\), KEYS_ONLY, which this version does not have/,
    );
    assert.ok(
      run.stderr.includes(`(HOOKLINE_DATA_DIR=${dir}-new npm start), or move this one aside (mv ${dir} ${dir}-old)`),
      run.stderr,
    );
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'a message, not a stack trace');
    assert.doesNotMatch(run.stdout, /Hookline is running/);

    // The folder is as it was: the one old table with its row, and no table of the new layout beside it.
    await withLocalDynamo(dir, async (check) => {
      assert.deepEqual((await check.send(new ListTablesCommand({}))).TableNames, [current.TableName]);
      const row = await check.send(
        new GetItemCommand({ TableName: current.TableName!, Key: { id: { S: 'dlv_old' } } }),
      );
      assert.equal(row.Item?.state?.S, 'pending');
    });
  });

  it('refuses a folder from before tenant routing (subscriptions without the byTenant index) the same way, its subscriptions kept', async () => {
    const dir = dataDir();
    const { GlobalSecondaryIndexes: _, ...before } = createTableInput(TABLES.subscriptions);
    await withLocalDynamo(dir, async (db) => {
      await db.send(
        new CreateTableCommand({ ...before, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }] }),
      );
      await waitForActive(db, before.TableName!);
      await db.send(
        new PutItemCommand({
          TableName: before.TableName!,
          Item: {
            id: { S: 'sub_old' },
            tenantId: { S: 'acme' },
            eventTypes: { L: [{ S: '*' }] },
            state: { S: 'active' },
          },
        }),
      );
    });

    const run = await start({ HOOKLINE_DATA_DIR: dir });

    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /table hookline-subscriptions lacks index byTenant on tenantId, createdAt \(sort\), INCLUDE/,
    );
    assert.doesNotMatch(run.stdout, /Hookline is running/);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startEmulatorThread } from '#local/emulator-thread.ts';
import { PortError } from '#local/ports.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('the emulators on a thread of their own', () => {
  it('serve from the worker thread, keep their data in the folder, and stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-emulator-thread-'));
    let emulators: Awaited<ReturnType<typeof startEmulatorThread>> | undefined;
    try {
      emulators = await startEmulatorThread(dir, new Set(['dynamodb', 'sqs']), { dynamodb: 0, sqs: 0 });
      assert.match(emulators.endpoints.dynamodb!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(emulators.endpoints.sqs!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(emulators.endpoints.s3, undefined, 'only what was asked for');
      const db = new DynamoDBClient({ endpoint: emulators.endpoints.dynamodb!, region: 'us-east-1', credentials });
      assert.deepEqual((await db.send(new ListTablesCommand({}))).TableNames, []);
      db.destroy();
      await emulators.stop();
      const after = new DynamoDBClient({
        endpoint: emulators.endpoints.dynamodb!,
        region: 'us-east-1',
        credentials,
        maxAttempts: 1,
      });
      await assert.rejects(after.send(new ListTablesCommand({})), /ECONNREFUSED/);
      after.destroy();
      await emulators.stop();
    } finally {
      // A second stop is the first one's: a failed assertion never leaves the thread running (and this file never ending).
      await emulators?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a port in use comes back as the PortError it was, naming the listener', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-emulator-thread-'));
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      await assert.rejects(
        startEmulatorThread(dir, new Set(['dynamodb']), { dynamodb: port, sqs: 0 }),
        (e: unknown) =>
          e instanceof PortError &&
          e.message.includes(`the DynamoDB emulator (dynalite) cannot listen on 127.0.0.1:${port}: the port is in use`),
      );
      // Nothing opened the store: no database is left writing to a folder its caller may remove.
      assert.deepEqual(readdirSync(join(dir, 'dynamodb')), []);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

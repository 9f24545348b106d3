import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePortBlock, startMain } from '#test/main-process.ts';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-ports-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A listener on 127.0.0.1:`port` standing in for another program that holds it. */
async function occupy(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return server;
}

describe('npm start: stable local ports', () => {
  it('each listener takes its own variable over PORT+n (here with PORT=0, which leaves the API on a free port)', async () => {
    const base = await freePortBlock(3);
    const run = await startMain({
      PORT: '0',
      HOOKLINE_DATA_DIR: dataDir(),
      HOOKLINE_DYNAMODB_PORT: String(base),
      HOOKLINE_SQS_PORT: String(base + 1),
      HOOKLINE_LAMBDA_PORT: String(base + 2),
    });
    try {
      assert.equal(run.code, null, run.stderr);
      assert.ok(run.stdout.includes(`DynamoDB   http://127.0.0.1:${base} (`), run.stdout);
      assert.ok(run.stdout.includes(`SQS        http://127.0.0.1:${base + 1} (`));
      assert.ok(run.stdout.includes(`Lambda     http://127.0.0.1:${base + 2} (`));
      assert.ok(
        run.stdout.includes(
          `export HOOKLINE_INGEST_QUEUE_URL=http://127.0.0.1:${base + 1}/000000000000/hookline-ingest`,
        ),
      );
      const api = Number(/API {8}http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stdout)![1]);
      assert.ok(![base, base + 1, base + 2].includes(api));
    } finally {
      await run.stop();
    }
  });

  it('a port in use stops the start with a message naming the variable to set, and leaves nothing running', async () => {
    const [apiPort, sqsPort] = [await freePortBlock(1), await freePortBlock(1)];
    const held = [await occupy(apiPort), await occupy(sqsPort)];
    try {
      const dir = dataDir();
      const api = await startMain({
        PORT: String(apiPort),
        HOOKLINE_DYNAMODB_PORT: '0',
        HOOKLINE_SQS_PORT: '0',
        HOOKLINE_LAMBDA_PORT: '0',
        HOOKLINE_DATA_DIR: dir,
      });
      assert.equal(api.code, 1);
      assert.ok(
        api.stderr.includes(`hookline: the API cannot listen on 127.0.0.1:${apiPort}: the port is in use`),
        api.stderr,
      );
      assert.match(api.stderr, /set PORT to a free port/);
      assert.doesNotMatch(api.stderr, /\n\s+at /, 'a message, not a stack trace');
      assert.ok(!existsSync(join(dir, 'runtime.json')), 'no runtime.json for the CLI to find');

      const sqs = await startMain({ PORT: '0', HOOKLINE_SQS_PORT: String(sqsPort), HOOKLINE_DATA_DIR: dataDir() });
      assert.equal(sqs.code, 1);
      assert.ok(
        sqs.stderr.includes(
          `the SQS and S3 emulator (fauxqs) cannot listen on 127.0.0.1:${sqsPort}: the port is in use`,
        ),
        sqs.stderr,
      );
      assert.match(sqs.stderr, /set HOOKLINE_SQS_PORT to a free port \(default PORT\+2; 0 picks one\)/);
    } finally {
      for (const server of held) await new Promise((r) => server.close(r));
    }
  });

  it('refuses a value that is not a port, and two listeners on one port, before starting anything', async () => {
    const bad = await startMain({ PORT: '0', HOOKLINE_LAMBDA_PORT: '70000', HOOKLINE_DATA_DIR: dataDir() });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /hookline: HOOKLINE_LAMBDA_PORT=70000 is not a port: a whole number from 0 to 65535/);
    const clash = await startMain({ PORT: '4567', HOOKLINE_DYNAMODB_PORT: '4567', HOOKLINE_DATA_DIR: dataDir() });
    assert.equal(clash.code, 1);
    assert.match(
      clash.stderr,
      /the API \(PORT\) and the DynamoDB emulator \(dynalite\) \(HOOKLINE_DYNAMODB_PORT\) would both listen on 4567/,
    );
  });
});

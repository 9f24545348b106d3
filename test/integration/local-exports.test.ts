import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { apiClient } from '#test/api-client.ts';
import { bannerExports, freePortBlock, startMain } from '#test/main-process.ts';
import { TestReceiver } from '#test/receiver.ts';
import { waitFor } from '#test/wait.ts';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const QUIET = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Refuses to send anywhere but loopback, so a client without an endpoint can be tested for
 * following the queue URL without any chance of a request reaching AWS.
 */
function loopbackOnly(client: SQSClient): SQSClient {
  client.middlewareStack.add(
    (next) => (args) => {
      const hostname = (args.request as { hostname?: string }).hostname;
      if (hostname !== '127.0.0.1') throw new Error(`the request would go to ${hostname}, not the local SQS`);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'testLoopbackOnly' },
  );
  return client;
}

describe('npm start: the banner gives a producer everything, on ports derived from PORT', () => {
  it('exports the API URL, key, queue URL and SQS endpoint; an event sent with the AWS SDK to that queue URL is delivered; a restart keeps them all', async () => {
    const port = await freePortBlock();
    const dir = mkdtempSync(join(tmpdir(), 'hookline-exports-'));
    dirs.push(dir);
    const receiver = await new TestReceiver().start();
    let run = await startMain({ PORT: String(port), HOOKLINE_DATA_DIR: dir });
    try {
      assert.equal(run.code, null, run.stderr);
      const vars = bannerExports(run.stdout);
      const sqsEndpoint = `http://127.0.0.1:${port + 2}`;
      assert.deepEqual(vars, {
        HOOKLINE_API_URL: `http://127.0.0.1:${port}`,
        HOOKLINE_ADMIN_KEY: readFileSync(join(dir, 'admin-key'), 'utf8').trim(),
        HOOKLINE_INGEST_QUEUE_URL: `${sqsEndpoint}/000000000000/hookline-ingest`,
        HOOKLINE_SQS_ENDPOINT: sqsEndpoint,
        HOOKLINE_CONSOLE_URL: `http://127.0.0.1:${port}/dashboard`,
      });
      assert.ok(run.stdout.includes(`Ingest     ${vars.HOOKLINE_INGEST_QUEUE_URL}`), run.stdout);
      assert.ok(run.stdout.includes(`DynamoDB   http://127.0.0.1:${port + 1} (dynalite`), 'DynamoDB on PORT+1');
      assert.ok(run.stdout.includes(`Lambda     http://127.0.0.1:${port + 3} (`), 'the Invoke API on PORT+3');
      // The web dashboard, and no line for a CloudWatch dashboard, which only the stack has.
      assert.ok(run.stdout.includes(`Console    http://127.0.0.1:${port}/dashboard `), run.stdout);
      assert.doesNotMatch(run.stdout, /Dashboard|DASHBOARD/);
      const page = await fetch(vars.HOOKLINE_CONSOLE_URL!);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script type="module" src="dashboard\/app\.js">/);

      const api = apiClient(vars.HOOKLINE_API_URL!, vars.HOOKLINE_ADMIN_KEY);
      const sub = await api.post('/v1/subscriptions', { url: `${receiver.url}/producer`, eventTypes: ['producer.*'] });
      assert.equal(sub.status, 201, JSON.stringify(sub.body));
      receiver.expectSecret('/producer', sub.body.secret);

      // As a producer would: the SDK pointed at the printed endpoint, sending to the printed URL.
      const pointed = new SQSClient({
        endpoint: vars.HOOKLINE_SQS_ENDPOINT,
        region: 'us-east-1',
        credentials: LOCAL_CREDENTIALS,
      });
      await pointed.send(
        new SendMessageCommand({
          QueueUrl: vars.HOOKLINE_INGEST_QUEUE_URL,
          MessageBody: '{"id":"sqs-1","type":"producer.created","payload":{"n":1}}',
        }),
      );
      // And with no endpoint at all: the SDK sends to the queue URL's own host and port, so the URL works as it is.
      const asIs = loopbackOnly(new SQSClient({ region: 'us-east-1', credentials: LOCAL_CREDENTIALS, logger: QUIET }));
      await asIs.send(
        new SendMessageCommand({
          QueueUrl: vars.HOOKLINE_INGEST_QUEUE_URL,
          MessageBody: '{"id":"sqs-2","type":"producer.created","payload":{"n": 2.50}}',
        }),
      );
      pointed.destroy();
      asIs.destroy();

      const got = await waitFor(
        'both events delivered',
        () => (receiver.distinctCount('/producer') >= 2 ? receiver.distinct('/producer') : undefined),
        30_000,
      );
      assert.deepEqual(got.map((r) => r.webhookId).sort(), ['sqs-1', 'sqs-2']);
      assert.ok(
        got.every((r) => r.verified),
        'signed with the subscription secret',
      );
      assert.ok(
        got.find((r) => r.webhookId === 'sqs-2')!.body.includes('"data":{"n": 2.50}'),
        'the payload text arrives as sent',
      );

      assert.equal(await run.stop(), 0);
      run = await startMain({ PORT: String(port), HOOKLINE_DATA_DIR: dir });
      assert.equal(run.code, null, run.stderr);
      assert.deepEqual(bannerExports(run.stdout), vars, 'the same ports, queue URL and key after a restart');
    } finally {
      await run.stop();
      await receiver.stop();
    }
  });

  it('with the key from HOOKLINE_ADMIN_KEY, the export line leaves it out and says to use your own variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-exports-'));
    dirs.push(dir);
    const key = 'hk_admin_from_the_environment_0123456789';
    const run = await startMain({ PORT: '0', HOOKLINE_DATA_DIR: dir, HOOKLINE_ADMIN_KEY: key });
    try {
      assert.equal(run.code, null, run.stderr);
      assert.ok(!run.stdout.includes(key), 'the key is not printed');
      const vars = bannerExports(run.stdout);
      assert.equal(vars.HOOKLINE_ADMIN_KEY, undefined);
      assert.match(vars.HOOKLINE_API_URL!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(
        run.stdout,
        /export HOOKLINE_API_URL=\S+ {3}# and HOOKLINE_ADMIN_KEY: set it from your own variable/,
      );
      assert.match(vars.HOOKLINE_INGEST_QUEUE_URL!, /^http:\/\/127\.0\.0\.1:\d+\/000000000000\/hookline-ingest$/);
    } finally {
      await run.stop();
    }
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { reachableQueueUrl } from '#local/emulators.ts';
import { listening, PortError, portsFromEnvironment, resolvePorts } from '#local/ports.ts';

describe('local ports', () => {
  it('derive from PORT (default 3000): DynamoDB +1, SQS and S3 +2, the Invoke API +3', () => {
    assert.deepEqual(portsFromEnvironment({}), { api: 3000, dynamodb: 3001, sqs: 3002, lambda: 3003 });
    assert.deepEqual(portsFromEnvironment({ PORT: '8080' }), { api: 8080, dynamodb: 8081, sqs: 8082, lambda: 8083 });
  });

  it('PORT=0 leaves every listener on a free port; each variable overrides its listener, 0 included', () => {
    assert.deepEqual(portsFromEnvironment({ PORT: '0' }), { api: 0, dynamodb: 0, sqs: 0, lambda: 0 });
    assert.deepEqual(portsFromEnvironment({ PORT: '0', HOOKLINE_SQS_PORT: '4566' }), {
      api: 0,
      dynamodb: 0,
      sqs: 4566,
      lambda: 0,
    });
    assert.deepEqual(portsFromEnvironment({ HOOKLINE_DYNAMODB_PORT: '8000', HOOKLINE_LAMBDA_PORT: '0' }), {
      api: 3000,
      dynamodb: 8000,
      sqs: 3002,
      lambda: 0,
    });
    assert.deepEqual(
      resolvePorts(0),
      { api: 0, dynamodb: 0, sqs: 0, lambda: 0 },
      'what tests get from startRuntime({ port: 0 })',
    );
  });

  it('refuses what cannot work, naming the variable', () => {
    assert.throws(
      () => portsFromEnvironment({ PORT: 'abc' }),
      (e: unknown) => e instanceof PortError && /^PORT=abc is not a port/.test(e.message),
    );
    assert.throws(() => portsFromEnvironment({ HOOKLINE_SQS_PORT: '65536' }), /HOOKLINE_SQS_PORT=65536 is not a port/);
    assert.throws(
      () => portsFromEnvironment({ PORT: '65534' }),
      /PORT=65534 puts the SQS and S3 emulator \(fauxqs\) on 65536 \(PORT\+2\), above 65535: choose a lower PORT or set HOOKLINE_SQS_PORT/,
    );
    assert.deepEqual(
      portsFromEnvironment({
        PORT: '65535',
        HOOKLINE_DYNAMODB_PORT: '1',
        HOOKLINE_SQS_PORT: '2',
        HOOKLINE_LAMBDA_PORT: '3',
      }).api,
      65535,
      'no derived port needed, none refused',
    );
    assert.throws(
      () => portsFromEnvironment({ HOOKLINE_LAMBDA_PORT: '3001' }),
      /the DynamoDB emulator \(dynalite\) \(HOOKLINE_DYNAMODB_PORT\) and the local Lambda Invoke API \(HOOKLINE_LAMBDA_PORT\) would both listen on 3001/,
    );
  });

  it('a port in use becomes a PortError saying which listener and which variable', async () => {
    const held = net.createServer();
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', () => r()));
    const port = (held.address() as net.AddressInfo).port;
    try {
      const second = net.createServer();
      await assert.rejects(
        listening(
          'lambda',
          port,
          () =>
            new Promise<void>((resolve, reject) =>
              second.once('error', reject).listen(port, '127.0.0.1', () => resolve()),
            ),
        ),
        (e: unknown) =>
          e instanceof PortError &&
          e.message.includes(`the local Lambda Invoke API cannot listen on 127.0.0.1:${port}: the port is in use`) &&
          /set HOOKLINE_LAMBDA_PORT to a free port \(default PORT\+3/.test(e.message),
      );
      await assert.rejects(
        listening('api', port, () => Promise.reject(new Error('other'))),
        /^Error: other$/,
        'other failures pass through',
      );
    } finally {
      await new Promise((r) => held.close(r));
    }
  });
});

describe('queue URLs of the embedded fauxqs', () => {
  it('get the endpoint as their origin: fauxqs names a host no resolver knows (and not even a valid URL)', () => {
    assert.equal(
      reachableQueueUrl('http://sqs.us-east-1.127.0.0.1:51234/000000000000/hookline-ingest', 'http://127.0.0.1:3002'),
      'http://127.0.0.1:3002/000000000000/hookline-ingest',
    );
    assert.equal(
      reachableQueueUrl('http://127.0.0.1:3002/000000000000/ci-1-hookline-delivery', 'http://127.0.0.1:3002/'),
      'http://127.0.0.1:3002/000000000000/ci-1-hookline-delivery',
    );
  });
});

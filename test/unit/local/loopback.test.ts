import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICES, startEmulators, type Emulators } from '#local/emulators.ts';
import { startGateway, type Gateway } from '#local/gateway.ts';
import { startLambdaApi, type LambdaApi } from '#local/lambda-api.ts';

/** Whether a TCP connection to host:port is accepted (within 2 s). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Every local listener binds 127.0.0.1 itself, not 0.0.0.0 or ::. A socket bound to a wildcard
 * also answers on 127.0.0.2 (all of 127/8 is loopback on Linux), so that address tells the two
 * apart without leaving the machine: the listener must answer on 127.0.0.1 and not there.
 */
describe('local listeners bind loopback only', () => {
  let dataDir: string;
  let emulators: Emulators;
  let gateway: Gateway;
  let lambdaApi: LambdaApi;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hookline-loopback-'));
    emulators = await startEmulators(dataDir, new Set(SERVICES));
    gateway = await startGateway({
      port: 0,
      api: async () => ({ statusCode: 200, body: '' }),
      authorizer: async () => ({ isAuthorized: false }),
      onError: () => {},
    });
    lambdaApi = await startLambdaApi({ functions: {}, onError: () => {} });
  });
  after(async () => {
    await gateway.close();
    await lambdaApi.close();
    await emulators.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const endpoints = (): Record<string, string> => ({
    'dynalite (DynamoDB)': emulators.endpoints.dynamodb!,
    'fauxqs (SQS and S3)': emulators.endpoints.sqs!,
    'the API gateway': gateway.url,
    'the Lambda Invoke API': lambdaApi.url,
  });
  for (const name of ['dynalite (DynamoDB)', 'fauxqs (SQS and S3)', 'the API gateway', 'the Lambda Invoke API']) {
    it(`${name} answers on 127.0.0.1 and on no other address`, async () => {
      const url = new URL(endpoints()[name]!);
      assert.equal(url.hostname, '127.0.0.1');
      const port = Number(url.port);
      assert.equal(await accepts('127.0.0.1', port), true, 'reachable on loopback');
      assert.equal(await accepts('127.0.0.2', port), false, 'not bound to a wildcard address');
    });
  }
});

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backend } from '#cli/backend.ts';
import { ServiceCallError } from '#cli/errors.ts';
import { awsTarget, localTarget } from '#cli/target.ts';
import { startLambdaApi, type LambdaApi } from '#local/lambda-api.ts';

describe('the CLI sends the local Invoke API its per-run token', () => {
  let api: LambdaApi;
  const calls: unknown[] = [];
  before(async () => {
    api = await startLambdaApi({
      functions: {
        replay: async (payload) => {
          calls.push(payload);
          return { id: 'dlv_1', state: 'pending' };
        },
      },
      onError: () => {},
    });
  });
  after(() => api.close());

  const dataDir = (runtime: object) => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-cli-token-'));
    writeFileSync(
      join(dir, 'runtime.json'),
      JSON.stringify({
        version: 2,
        api: 'http://127.0.0.1:1',
        dynamodb: '',
        sqs: '',
        s3: '',
        resourcePrefix: '',
        pid: 1,
        ...runtime,
      }),
    );
    return dir;
  };

  it('takes it from runtime.json: the invocation goes through', async () => {
    const backend = new Backend(localTarget({ dataDir: dataDir({ lambda: api.url, lambdaToken: api.token }) }, {}));
    assert.deepEqual(await backend.invoke('replay', { deliveryId: 'dlv_1' }), { id: 'dlv_1', state: 'pending' });
    assert.deepEqual(calls.at(-1), { deliveryId: 'dlv_1' });
  });

  it('without the token the runtime refuses it, and the CLI says so (403)', async () => {
    const backend = new Backend(localTarget({ dataDir: dataDir({ lambda: api.url }) }, {}));
    await assert.rejects(
      backend.invoke('replay', { deliveryId: 'dlv_1' }),
      (e: unknown) => e instanceof ServiceCallError && e.status === 403 && /token/.test(e.message),
    );
  });

  it("runtime.json's token goes only to runtime.json's endpoint; another --lambda-endpoint gets $HOOKLINE_LAMBDA_TOKEN", async () => {
    const elsewhere = dataDir({ lambda: 'http://127.0.0.1:9', lambdaToken: 'not-for-this-endpoint' });
    const withFile = new Backend(localTarget({ dataDir: elsewhere, lambdaEndpoint: api.url }, {}));
    await assert.rejects(
      withFile.invoke('replay', {}),
      (e: unknown) => e instanceof ServiceCallError && e.status === 403,
    );
    const withEnv = new Backend(
      localTarget({ dataDir: elsewhere, lambdaEndpoint: api.url }, { HOOKLINE_LAMBDA_TOKEN: api.token }),
    );
    assert.deepEqual(await withEnv.invoke('replay', {}), { id: 'dlv_1', state: 'pending' });
  });

  it('with --aws only an explicit --lambda-endpoint gets $HOOKLINE_LAMBDA_TOKEN (never AWS itself)', async () => {
    const env = { HOOKLINE_LAMBDA_TOKEN: api.token };
    // The SDK's own credential chain reads the process environment.
    process.env.AWS_ACCESS_KEY_ID = 'local';
    process.env.AWS_SECRET_ACCESS_KEY = 'local';
    const target = awsTarget(
      { region: 'us-east-1', lambdaEndpoint: api.url, replayFunction: 'replay', archiverFunction: 'archiver' },
      {},
      env,
    );
    assert.deepEqual(await new Backend(target).invoke('replay', {}), { id: 'dlv_1', state: 'pending' });
    const toAws = await awsTarget(
      { region: 'us-east-1', replayFunction: 'replay', archiverFunction: 'archiver' },
      {},
      env,
    ).lambda();
    assert.equal(
      toAws.client.middlewareStack.identify().some((m) => m.includes('hooklineInvokeToken')),
      false,
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKETS, localResourceName, QUEUES, TABLES, validResourcePrefix } from '#config/topology.ts';
import { externalEndpoints } from '#local/emulators.ts';
import type { ProvisionedQueues } from '#local/provision.ts';
import { clientConfig, localEnv } from '#local/runtime.ts';

describe('endpoint variables', () => {
  it('reads AWS_ENDPOINT_URL_DYNAMODB, _SQS and _S3; a service without one is emulated', () => {
    assert.deepEqual(externalEndpoints({}), {});
    assert.deepEqual(externalEndpoints({ AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000/' }), {
      dynamodb: 'http://127.0.0.1:8000',
    });
    assert.deepEqual(
      externalEndpoints({
        AWS_ENDPOINT_URL_SQS: 'http://localhost:4566',
        AWS_ENDPOINT_URL_S3: 'http://localhost:4566',
        AWS_ENDPOINT_URL_DYNAMODB: '',
      }),
      {
        sqs: 'http://localhost:4566',
        s3: 'http://localhost:4566',
      },
    );
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable', () => {
    assert.throws(
      () => externalEndpoints({ AWS_ENDPOINT_URL_SQS: 'localhost:4566' }),
      /AWS_ENDPOINT_URL_SQS=localhost:4566 is not an http\(s\) URL/,
    );
  });

  it('dummy credentials only for an embedded emulator; an external endpoint gets the SDK chain and AWS_REGION (default us-east-1)', () => {
    assert.deepEqual(clientConfig('http://127.0.0.1:1', true, { AWS_REGION: 'eu-west-1' }), {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 5,
      endpoint: 'http://127.0.0.1:1',
    });
    const external = clientConfig('https://dynamodb.eu-west-1.amazonaws.com', false, { AWS_REGION: 'eu-west-1' });
    assert.equal(external.region, 'eu-west-1');
    assert.ok(!('credentials' in external), 'the SDK resolves credentials itself');
    assert.equal(clientConfig('http://127.0.0.1:8000', false, {}).region, 'us-east-1');
  });
});

describe('HOOKLINE_RESOURCE_PREFIX', () => {
  it('none keeps the topology names; a prefix goes in front of every table, queue, redrive queue and bucket', () => {
    assert.equal(localResourceName(TABLES.deliveries), 'hookline-deliveries');
    assert.equal(localResourceName(TABLES.deliveries, ''), 'hookline-deliveries');
    assert.equal(localResourceName(TABLES.deliveries, 'ci-42'), 'ci-42-hookline-deliveries');
    assert.equal(localResourceName(QUEUES.delivery.redrive, 'ci-42'), 'ci-42-hookline-delivery-redrive');
    assert.equal(localResourceName(BUCKETS.archive, 'ci-42'), 'ci-42-hookline-archive');
  });

  it('refuses prefixes that would make an invalid bucket, queue or table name', () => {
    for (const bad of ['CI', 'ci_42', '-ci', 'ci-', 'ci.42', 'a'.repeat(33), 'xn--abc', 'sthree-x', 'ci 42']) {
      assert.throws(
        () => validResourcePrefix(bad),
        /HOOKLINE_RESOURCE_PREFIX .* is not valid: use 1 to 32 lowercase letters, digits and hyphens/,
        bad,
      );
    }
    assert.equal(validResourcePrefix('a'.repeat(32)), 'a'.repeat(32));
    assert.equal(validResourcePrefix(undefined), '');
    // The longest names stay within S3's 63 and SQS's 80 characters.
    assert.ok(localResourceName(BUCKETS.archive, 'a'.repeat(32)).length <= 63);
    assert.ok(localResourceName(QUEUES.delivery.redrive, 'a'.repeat(32)).length <= 80);
  });

  it("reaches the handlers' environment: every table and bucket name, the queue URLs as provisioned", () => {
    const queues = {
      urls: { ingest: 'http://q/ci-42-hookline-ingest', delivery: 'http://q/ci-42-hookline-delivery' },
    } as unknown as ProvisionedQueues;
    const env = localEnv(queues, true, {}, 'ci-42');
    for (const def of Object.values(TABLES)) assert.equal(env[def.envVar], `ci-42-${def.localName}`, def.envVar);
    assert.equal(env.ARCHIVE_BUCKET, 'ci-42-hookline-archive');
    assert.equal(env.DELIVERY_QUEUE_URL, 'http://q/ci-42-hookline-delivery');
    assert.equal(localEnv(queues, true).DELIVERIES_TABLE, 'hookline-deliveries');
  });
});

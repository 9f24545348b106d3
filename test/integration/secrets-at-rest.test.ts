import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ROUTE_STATUS_KEY } from '#adapters/dynamodb-route-store.ts';
import { formatSecret } from '#domain/signing.ts';
import { startRuntime, type Runtime } from '#local/runtime.ts';
import { apiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { TestReceiver } from '#test/receiver.ts';
import { testResourcePrefix } from '#test/resource-prefix.ts';
import { waitFor } from '#test/wait.ts';

/**
 * Signing secrets are sealed before they reach the subscriptions table (issue 12): the raw
 * item, read past every Hookline adapter, holds no `whsec_` and no secret bytes, while the
 * receiver still verifies every signature with `standardwebhooks`.
 */
async function rawRow(runtime: Runtime, id: string): Promise<Record<string, AttributeValue>> {
  const out = await runtime.clients.dynamodb.send(
    new GetItemCommand({ TableName: runtime.env.SUBSCRIPTIONS_TABLE!, Key: { id: { S: id } }, ConsistentRead: true }),
  );
  assert.ok(out.Item, `row ${id} exists`);
  return out.Item;
}

function assertNoPlainSecret(row: Record<string, AttributeValue>, secret: string): void {
  const raw = JSON.stringify(row);
  assert.ok(!raw.includes('whsec_'), `the row holds a whsec_ secret: ${raw}`);
  // Nor the key bytes under another spelling: the base64 after the prefix.
  assert.ok(!raw.includes(secret.slice('whsec_'.length)), 'the row holds the secret without its prefix');
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('signing secrets at rest (local runtime)', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  it('stores a new subscription with no whsec_ anywhere in its row, and the receiver still verifies', async () => {
    const sub = await stack.subscribe('/sealed', { eventTypes: ['sealed.test'] });
    assert.match(sub.secret, /^whsec_/);
    assertNoPlainSecret(await rawRow(stack.runtime, sub.id), sub.secret);

    const { deliveryIds } = await stack.publish('sealed.test', { n: 1 });
    await stack.waitForState(deliveryIds[0]!, ['delivered']);
    const [req] = stack.receiver.on('/sealed');
    assert.equal(req?.verified, true);
  });

  it('never shows the secret again once created', async () => {
    const sub = await stack.subscribe('/once', { eventTypes: ['once.test'] });
    const got = await stack.api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.secret, undefined);
    assert.ok(!JSON.stringify(got.body).includes('whsec_'));
  });

  it("creates the data folder, the emulators' folders and every key file for the owner only", () => {
    const dir = stack.runtime.dataDir;
    for (const folder of [dir, join(dir, 'dynamodb'), join(dir, 'sqs')]) assert.equal(mode(folder), 0o700, folder);
    for (const file of ['admin-key', 'secrets-key', 'runtime.json']) assert.equal(mode(join(dir, file)), 0o600, file);
  });
});

describe('plain-text secrets from before sealing', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookline-legacy-'));
  const secret = formatSecret(new Uint8Array(32).fill(9));
  // One receiver across both runtimes, so the planted row's URL stays reachable after the restart.
  const receiver = new TestReceiver();
  let runtime: Runtime | undefined;
  const start = () =>
    startRuntime({
      port: 0,
      logLevel: 'SILENT',
      dataDir,
      resourcePrefix: testResourcePrefix(dataDir),
      scheduleIntervalMs: { sweeper: 3_600_000 },
    });
  before(async () => {
    await receiver.start();
    receiver.expectSecret('/legacy', secret);
  });
  after(async () => {
    await runtime?.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Publishes one event and waits until the receiver has it; returns that request. */
  async function deliverOne(rt: Runtime, n: number) {
    const api = apiClient(rt.url, rt.adminKey);
    const res = await api.post('/v1/events', { type: 'legacy.test', payload: { n } });
    assert.equal(res.status, 202);
    await waitFor(
      'the delivery',
      async () => (await api.get(`/v1/deliveries/${res.body.deliveryIds[0]}`)).body.state === 'delivered',
    );
    return receiver.on('/legacy').find((r) => JSON.parse(r.body).data.n === n);
  }

  it('the sender still signs with a plain-text secret it finds, and the next start seals it', async () => {
    runtime = await start();
    const now = new Date().toISOString();
    // A row as the store wrote it before sealing: `secrets` a list of plain strings.
    await runtime.clients.dynamodb.send(
      new PutItemCommand({
        TableName: runtime.env.SUBSCRIPTIONS_TABLE!,
        Item: {
          id: { S: 'sub_legacy' },
          url: { S: `${receiver.url}/legacy` },
          eventTypes: { L: [{ S: 'legacy.test' }] },
          state: { S: 'active' },
          stateChangedAt: { S: now },
          createdAt: { S: now },
          updatedAt: { S: now },
          secrets: { L: [{ S: secret }] },
        },
      }),
    );
    // And as a deployment from before the routing index: its first publish builds the index, adopting the row.
    await runtime.clients.dynamodb.send(
      new DeleteItemCommand({
        TableName: runtime.env.ROUTES_TABLE!,
        Key: { route: { S: ROUTE_STATUS_KEY.route }, entry: { S: ROUTE_STATUS_KEY.entry } },
      }),
    );
    assert.equal((await deliverOne(runtime, 1))?.verified, true, 'signed with the plain-text secret');
    await runtime.stop();

    // A restart on the same data folder seals what it finds (local/runtime.ts, at start-up).
    runtime = await start();
    assertNoPlainSecret(await rawRow(runtime, 'sub_legacy'), secret);
    assert.equal((await deliverOne(runtime, 2))?.verified, true, 'the sealed secret signs the same way');
  });
});

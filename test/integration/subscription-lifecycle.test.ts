import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { apiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import type { ReceivedRequest } from '#test/receiver.ts';
import { waitFor } from '#test/wait.ts';

/** Whether `secret` verifies a received request, with the standardwebhooks package as a receiver would. */
function verifiesWith(secret: string, r: ReceivedRequest): boolean {
  try {
    new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * An independent v1a check from the Standard Webhooks spec, with node:crypto only: the
 * signature is Ed25519 over `id.timestamp.body`, sent as `v1a,<base64>`, and the public key is
 * `whpk_` followed by the base64 of its 32 raw bytes.
 */
function ed25519Verifies(publicKey: string, r: ReceivedRequest): boolean {
  const raw = Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  const content = Buffer.from(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`);
  return String(r.headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, content, key, Buffer.from(s.slice(4), 'base64')));
}

describe('the subscription lifecycle over HTTP: update, delete, rotate, ed25519, test', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(async () => stack.stop());

  const lastOn = async (path: string, count: number) =>
    waitFor(
      `${count} request(s) on ${path}`,
      async () => (stack.receiver.on(path).length >= count ? stack.receiver.on(path).at(-1) : undefined),
      20_000,
    );

  it('PATCH changes the URL, headers, metadata and description for the attempts after it', async () => {
    const sub = await stack.subscribe('/patch-before', { eventTypes: ['patch.test'] });
    const first = await stack.publish('patch.test', { n: 1 });
    await stack.waitForState(first.deliveryIds[0]!, ['delivered']);
    stack.receiver.expectSecret('/patch-after', sub.secret);

    const res = await stack.api.patch(`/v1/subscriptions/${sub.id}`, {
      url: `${stack.receiver.url}/patch-after`,
      headers: { 'X-Tenant-Route': 'blue', Authorization: 'Bearer receiver-token' },
      metadata: { team: 'payments' },
      description: 'moved',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.url, `${stack.receiver.url}/patch-after`);
    assert.deepEqual(res.body.headers, { 'x-tenant-route': 'blue', authorization: 'Bearer receiver-token' });
    assert.deepEqual(res.body.metadata, { team: 'payments' });
    assert.equal(res.body.description, 'moved');

    const second = await stack.publish('patch.test', { n: 2 });
    await stack.waitForState(second.deliveryIds[0]!, ['delivered']);
    const got = await lastOn('/patch-after', 1);
    assert.equal(got.headers['x-tenant-route'], 'blue');
    assert.equal(got.headers.authorization, 'Bearer receiver-token');
    assert.ok(got.verified, 'the moved endpoint verifies with the same secret');
    assert.equal(stack.receiver.on('/patch-before').length, 1, 'the old URL got only the attempt before the change');

    // null removes an optional field.
    const cleared = await stack.api.patch(`/v1/subscriptions/${sub.id}`, { description: null, headers: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.description, null);
    assert.deepEqual(cleared.body.headers, {});
  });

  it('a delivery waiting out a backoff goes to the new URL on its next try, and its row says so', async () => {
    stack.receiver.script('/move-from', [], { status: 503 });
    const sub = await stack.subscribe('/move-from', { eventTypes: ['move.test'] });
    stack.receiver.expectSecret('/move-to', sub.secret);
    const published = await stack.publish('move.test', { n: 1 });
    const id = published.deliveryIds[0]!;
    await lastOn('/move-from', 1);
    assert.equal(
      (await stack.api.patch(`/v1/subscriptions/${sub.id}`, { url: `${stack.receiver.url}/move-to` })).status,
      200,
    );
    const done = await stack.waitForState(id, ['delivered']);
    assert.equal(done.url, `${stack.receiver.url}/move-to`);
    assert.ok((await lastOn('/move-to', 1)).verified);
    assert.ok(done.attempts >= 2);
  });

  it('PATCH refuses what it cannot apply, naming the field, and changes nothing', async () => {
    const sub = await stack.subscribe('/patch-bad', { eventTypes: ['patch.bad'] });
    const before = (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body;
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ secret: 'whsec_x' }, 'secret'],
      [{ url: 'ftp://example.com/x' }, 'url'],
      [{ eventTypes: [] }, 'eventTypes'],
      [{ headers: { 'webhook-id': 'x' } }, 'headers.webhook-id'],
      [{ headers: { Host: 'evil.example' } }, 'headers.Host'],
      [{ headers: { 'Content-Length': '1' } }, 'headers.Content-Length'],
      [{ headers: { Connection: 'close' } }, 'headers.Connection'],
      [{ headers: { 'Transfer-Encoding': 'chunked' } }, 'headers.Transfer-Encoding'],
      [{ headers: { 'X-Bad': 'two\r\nlines' } }, 'headers.X-Bad'],
      [{ headers: { 'bad name': 'x' } }, 'headers.bad name'],
      [{ rateLimitPerSecond: 0 }, 'rateLimitPerSecond'],
      [{ rateLimitPerSecond: 1.5 }, 'rateLimitPerSecond'],
      [{ metadata: { k: 7 } }, 'metadata.k'],
      [{ retryPolicy: { multiplier: 'x' } }, 'retryPolicy.multiplier'],
    ];
    for (const [body, field] of cases) {
      const res = await stack.api.patch(`/v1/subscriptions/${sub.id}`, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.ok(
        res.body.error.message.startsWith(`${field}:`),
        `${JSON.stringify(body)} names ${field}: ${res.body.error.message}`,
      );
    }
    assert.deepEqual((await stack.api.get(`/v1/subscriptions/${sub.id}`)).body, before, 'nothing was stored');
    assert.equal(
      (await stack.api.patch('/v1/subscriptions/sub_nope0000000000000000', { description: 'x' })).status,
      404,
    );
  });

  it('DELETE dead-letters every pending delivery as failed, keeps the row, and stops fan-out', async () => {
    const sub = await stack.subscribe('/delete-me', { eventTypes: ['delete.test'] });
    // Paused, so its deliveries wait as pending: nothing may be lost when it is deleted.
    assert.equal((await stack.api.post(`/v1/subscriptions/${sub.id}/pause`)).status, 200);
    const published = await Promise.all([1, 2, 3].map((n) => stack.publish('delete.test', { n })));
    const ids = published.map((p) => p.deliveryIds[0]!);
    await Promise.all(ids.map((id) => stack.waitForState(id, ['pending'])));

    const res = await stack.api.delete(`/v1/subscriptions/${sub.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'deleted');
    assert.equal(res.body.deadLettered, 3);
    for (const id of ids) {
      const d = await stack.waitForState(id, ['failed']);
      assert.equal(d.lastError, 'subscription deleted');
    }
    const dead = await stack.api.get(`/v1/dead-letters?subscriptionId=${sub.id}`);
    assert.deepEqual(
      dead.body.items.map((d: { id: string }) => d.id).sort(),
      [...ids].sort(),
      'every one is a dead letter to see and keep',
    );
    assert.equal(stack.receiver.on('/delete-me').length, 0, 'none was POSTed');

    // The row stays readable, is not sent to, and refuses changes.
    assert.equal((await stack.api.get(`/v1/subscriptions/${sub.id}`)).body.state, 'deleted');
    const later = await stack.publish('delete.test', { n: 4 });
    assert.deepEqual(later.deliveryIds, [], 'publish no longer fans out to it');
    assert.equal((await stack.api.patch(`/v1/subscriptions/${sub.id}`, { description: 'x' })).status, 409);
    assert.equal((await stack.api.post(`/v1/subscriptions/${sub.id}/resume`)).status, 409);
    assert.equal((await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`)).status, 409);
    assert.equal((await stack.api.post(`/v1/deliveries/${ids[0]}/replay`)).status, 409);
    const again = await stack.api.delete(`/v1/subscriptions/${sub.id}`);
    assert.equal(again.status, 200);
    assert.equal(again.body.deadLettered, 0, 'deleting again changes nothing');
  });

  it('a rotation signs with the new and the old secret during the overlap, then with the new one alone', async () => {
    const sub = await stack.subscribe('/rotate', { eventTypes: ['rotate.test'] });
    const rotated = await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`, { overlapSeconds: 3 });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh: string = rotated.body.secret;
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, sub.secret);
    assert.equal(rotated.body.secrets.length, 2);
    assert.equal(rotated.body.secrets[0].secret, fresh);
    assert.equal(rotated.body.secrets[0].expiresAt, null);
    assert.equal(rotated.body.secrets[1].secret, sub.secret);
    assert.ok(Date.parse(rotated.body.secrets[1].expiresAt) > Date.now());

    const read = await stack.api.get(`/v1/subscriptions/${sub.id}/secret`);
    assert.deepEqual(read.body, { signatureScheme: 'v1', secrets: rotated.body.secrets });

    const during = await stack.publish('rotate.test', { phase: 'overlap' });
    await stack.waitForState(during.deliveryIds[0]!, ['delivered']);
    const overlap = await lastOn('/rotate', 1);
    assert.ok(verifiesWith(sub.secret, overlap), 'a receiver still on the old secret verifies');
    assert.ok(verifiesWith(fresh, overlap), 'a receiver on the new secret verifies');

    await waitFor(
      'the overlap to end',
      async () => Date.now() > Date.parse(rotated.body.secrets[1].expiresAt) + 200 || undefined,
      10_000,
    );
    const afterIt = await stack.publish('rotate.test', { phase: 'after' });
    await stack.waitForState(afterIt.deliveryIds[0]!, ['delivered']);
    const last = await lastOn('/rotate', 2);
    assert.ok(verifiesWith(fresh, last), 'the new secret verifies');
    assert.ok(!verifiesWith(sub.secret, last), 'the old secret dropped out by itself');
    assert.equal((await stack.api.get(`/v1/subscriptions/${sub.id}/secret`)).body.secrets.length, 1);
  });

  it('a rotation takes the caller’s own whsec_ secret, and refuses a malformed one naming `secret`', async () => {
    const sub = await stack.subscribe('/rotate-own', { eventTypes: ['rotate.own'] });
    const own = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const res = await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`, { secret: own, overlapSeconds: 0 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.secret, own);
    assert.equal(res.body.secrets.length, 1, 'overlap 0 ends the old secret at once');
    const published = await stack.publish('rotate.own', {});
    await stack.waitForState(published.deliveryIds[0]!, ['delivered']);
    const got = await lastOn('/rotate-own', 1);
    assert.ok(verifiesWith(own, got));
    assert.ok(!verifiesWith(sub.secret, got));

    for (const body of [
      { secret: 'not-a-secret' },
      { secret: 'whsec_c2hvcnQ=' },
      { secret: own },
      { overlapSeconds: -1 },
      { overlapSeconds: 10 ** 9 },
    ]) {
      const bad = await stack.api.post(`/v1/subscriptions/${sub.id}/rotate-secret`, body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(bad.body)}`);
      assert.match(bad.body.error.message, /^(secret|overlapSeconds):/);
    }
  });

  it('a v1a subscription signs with Ed25519; the receiver holds only the public key, across a rotation too', async () => {
    const created = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/ed25519`,
      eventTypes: ['ed.test'],
      signatureScheme: 'v1a',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.signatureScheme, 'v1a');
    assert.equal(created.body.secret, undefined, 'the signing key never leaves Hookline');
    const publicKey: string = created.body.publicKey;
    assert.match(publicKey, /^whpk_/);

    const first = await stack.publish('ed.test', { n: 1 });
    await stack.waitForState(first.deliveryIds[0]!, ['delivered']);
    const got = await lastOn('/ed25519', 1);
    assert.match(String(got.headers['webhook-signature']), /^v1a,/);
    assert.ok(ed25519Verifies(publicKey, got), 'verifies with the public key');
    const tampered = { ...got, body: got.body.replace('"n":1', '"n":2') };
    assert.ok(!ed25519Verifies(publicKey, tampered), 'a changed body does not verify');

    const rotated = await stack.api.post(`/v1/subscriptions/${created.body.id}/rotate-secret`, {});
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.publicKey, /^whpk_/);
    assert.deepEqual(
      rotated.body.secrets.map((s: { publicKey: string }) => s.publicKey),
      [rotated.body.publicKey, publicKey],
    );
    const second = await stack.publish('ed.test', { n: 2 });
    await stack.waitForState(second.deliveryIds[0]!, ['delivered']);
    const after = await lastOn('/ed25519', 2);
    assert.ok(
      ed25519Verifies(publicKey, after) && ed25519Verifies(rotated.body.publicKey, after),
      'old and new public keys both verify during the overlap',
    );
  });

  it('a tenant key fixes its own subscriptions and cannot see another tenant’s', async () => {
    const own = await stack.subscribe('/tenant-own', { tenantId: 'fixer', eventTypes: ['tenant.own'] });
    const other = await stack.subscribe('/tenant-other', { tenantId: 'someone-else', eventTypes: ['tenant.other'] });
    const tenant = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/fixer/keys')).body.key);
    assert.equal((await tenant.patch(`/v1/subscriptions/${own.id}`, { description: 'mine' })).status, 200);
    assert.equal((await tenant.post(`/v1/subscriptions/${own.id}/rotate-secret`, { overlapSeconds: 60 })).status, 200);
    assert.equal((await tenant.get(`/v1/subscriptions/${own.id}/secret`)).body.secrets.length, 2);
    assert.equal((await tenant.post(`/v1/subscriptions/${own.id}/test`)).status, 202);
    for (const res of [
      await tenant.patch(`/v1/subscriptions/${other.id}`, { description: 'theirs' }),
      await tenant.post(`/v1/subscriptions/${other.id}/rotate-secret`),
      await tenant.get(`/v1/subscriptions/${other.id}/secret`),
      await tenant.post(`/v1/subscriptions/${other.id}/test`),
      await tenant.delete(`/v1/subscriptions/${other.id}`),
    ]) {
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal(
      (await stack.api.get(`/v1/subscriptions/${other.id}`)).body.description,
      null,
      'the other tenant’s is untouched',
    );
    assert.equal(
      (await tenant.patch(`/v1/subscriptions/${own.id}`, { tenantId: 'someone-else' })).status,
      400,
      'the tenant is not an editable field',
    );
    assert.equal((await tenant.delete(`/v1/subscriptions/${own.id}`)).body.state, 'deleted');
  });

  it('POST .../test sends a hookline.test event to that subscription alone, through the normal pipeline', async () => {
    const sub = await stack.subscribe('/test-event', { eventTypes: ['only.this'] });
    const other = await stack.subscribe('/test-other', { eventTypes: ['*'] });
    const res = await stack.api.post(`/v1/subscriptions/${sub.id}/test`);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.match(res.body.deliveryId, /^dlv_/);
    await stack.waitForState(res.body.deliveryId, ['delivered']);
    const got = await lastOn('/test-event', 1);
    assert.ok(got.verified);
    const body = JSON.parse(got.body);
    assert.equal(body.type, 'hookline.test');
    assert.equal(body.id, res.body.eventId);
    assert.equal(body.data.subscriptionId, sub.id);
    assert.equal(stack.receiver.on('/test-other').length, 0, `${other.id} (subscribed to everything) got nothing`);
  });
});

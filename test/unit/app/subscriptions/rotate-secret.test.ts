import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN } from '#app/access.ts';
import { ConflictError, NotFoundError } from '#app/errors.ts';
import { MAX_LIVE_SECRETS, readSecrets, rotateSecret } from '#app/subscriptions/rotate-secret.ts';
import { aSubscription, fakeDeps, TEST_SECRET } from '#test/fakes.ts';

const HOUR = 3_600_000;

async function seeded() {
  const deps = fakeDeps();
  await deps.subscriptions.create(aSubscription({ id: 'sub_r', tenantId: 'acme' }));
  return deps;
}

describe('rotateSecret: a new secret at once, the old one for the overlap', () => {
  it('keeps the old secret until the overlap ends, then it drops out of what signs', async () => {
    const deps = await seeded();
    const rotated = await rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 3600 });
    assert.match(rotated.secret!, /^whsec_/);
    assert.deepEqual(
      rotated.secrets.map((s) => s.secret),
      [rotated.secret, TEST_SECRET],
    );
    assert.deepEqual(
      rotated.secrets.map((s) => s.expiresAt),
      [null, new Date(deps.clock.now() + HOUR).toISOString()],
    );
    deps.clock.advance(HOUR - 1);
    assert.equal((await readSecrets(deps, ADMIN, 'sub_r')).secrets.length, 2);
    deps.clock.advance(1);
    assert.deepEqual(
      (await readSecrets(deps, ADMIN, 'sub_r')).secrets.map((s) => s.secret),
      [rotated.secret],
    );
  });

  it('never lengthens an old secret’s overlap, and keeps at most MAX_LIVE_SECRETS signing', async () => {
    const deps = await seeded();
    await rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 60 });
    const second = await rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 3600 });
    assert.equal(second.secrets[2]!.secret, TEST_SECRET);
    assert.equal(
      second.secrets[2]!.expiresAt,
      new Date(deps.clock.now() + 60_000).toISOString(),
      'the first rotation’s 60 s still holds',
    );
    for (let i = 0; i < MAX_LIVE_SECRETS + 2; i++) await rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 3600 });
    assert.equal((await readSecrets(deps, ADMIN, 'sub_r')).secrets.length, MAX_LIVE_SECRETS);
  });

  it('refuses to drop a concurrent rotation’s secret, even within the same millisecond: replaced secrets are a conflict', async () => {
    const deps = await seeded();
    const stale = (await deps.subscriptions.get('sub_r'))!;
    // No clock advance: an updatedAt condition would let this second rotation through.
    await rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 60 });
    assert.equal((await deps.subscriptions.get('sub_r'))!.secretsVersion, 1);
    const store = deps.subscriptions;
    const get = store.get.bind(store);
    store.get = async (id) => (id === 'sub_r' ? stale : get(id));
    await assert.rejects(rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 60 }), ConflictError);
  });

  it('hides another tenant’s subscription and refuses a deleted one', async () => {
    const deps = await seeded();
    await assert.rejects(
      rotateSecret(deps, { role: 'tenant', tenantId: 'other', keyId: 'key_x' }, 'sub_r', { overlapSeconds: 0 }),
      NotFoundError,
    );
    await deps.subscriptions.setState('sub_r', 'deleted', 'deleted by request', deps.clock.iso());
    await assert.rejects(rotateSecret(deps, ADMIN, 'sub_r', { overlapSeconds: 0 }), ConflictError);
    await assert.rejects(readSecrets(deps, ADMIN, 'sub_r'), ConflictError);
  });
});

import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { after, before, describe, it } from 'node:test';
import { runArchive } from '#app/archive/archival.ts';
import { BUCKETS } from '#config/topology.ts';
import { SUBSCRIPTION_ARCHIVE_PREFIX } from '#domain/archive.ts';
import { archiverDepsOf } from '#test/archive.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/** Retention 0 days: a deleted subscription and its deliveries are archivable at once, with no clock travel. */
const ENV = {
  HOOKLINE_RETENTION_DELIVERED_DAYS: '0',
  // Delivered rows are archived here (off by default: TTL deletes them), so the archive has both kinds.
  HOOKLINE_ARCHIVE_DELIVERED: '1',
  HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0',
};

describe('a deleted subscription is archived with the rest once its retention has passed', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack({ env: ENV });
  });
  after(async () => stack.stop());

  it('keeps the row readable while it has deliveries, then writes it (without secrets) to the archive and removes it', async () => {
    const kept = await stack.subscribe('/kept', { eventTypes: ['arch.kept'] });
    const gone = await stack.subscribe('/gone', { eventTypes: ['arch.gone'] });
    const published = await Promise.all([1, 2].map((n) => stack.publish('arch.gone', { n })));
    for (const p of published) await stack.waitForState(p.deliveryIds[0]!, ['delivered']);
    assert.equal((await stack.api.delete(`/v1/subscriptions/${gone.id}`)).status, 200);
    await stack.api.delete(`/v1/subscriptions/${kept.id}`);
    // An active subscription is never archived, whatever its age.
    const active = await stack.subscribe('/active', { eventTypes: ['arch.active'] });

    const deps = archiverDepsOf(stack);
    const report = await runArchive(deps, { budget: { deadlineMs: Date.now() + 60_000 } });
    assert.equal(report.kind, 'done');
    assert.equal(report.archived, 2, 'its deliveries went first');
    assert.equal(report.subscriptions, 2);

    assert.equal((await stack.api.get(`/v1/subscriptions/${gone.id}`)).status, 404);
    assert.equal((await stack.api.get(`/v1/subscriptions/${active.id}`)).status, 200);
    const s3 = stack.runtime.clients.s3;
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKETS.archive.localName, Prefix: SUBSCRIPTION_ARCHIVE_PREFIX }),
    );
    const key = listed.Contents!.map((o) => o.Key!).find((k) => k.endsWith(`/${gone.id}.json.gz`));
    assert.ok(key, `an object for ${gone.id} among ${listed.Contents!.map((o) => o.Key).join(', ')}`);
    const body = await (
      await s3.send(new GetObjectCommand({ Bucket: BUCKETS.archive.localName, Key: key }))
    ).Body!.transformToByteArray();
    const archived = JSON.parse(gunzipSync(body).toString('utf8'));
    assert.equal(archived.subscription.id, gone.id);
    assert.equal(archived.subscription.state, 'deleted');
    assert.equal(archived.subscription.secrets, undefined, 'no secret material in the bucket');
    assert.ok(!JSON.stringify(archived).includes('whsec_'));

    const again = await runArchive(deps, { budget: { deadlineMs: Date.now() + 60_000 } });
    assert.equal(again.subscriptions, 0, 'nothing archived twice');
  });
});

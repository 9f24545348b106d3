import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { deliveryKey } from '#adapters/delivery-keys.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { runArchive } from '#app/archive/archival.ts';
import { archiverDepsOf } from '#test/archive.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * The default: delivered deliveries are not archived (HOOKLINE_ARCHIVE_DELIVERED 0). DynamoDB
 * TTL deletes them at the end of their retention, for free; dead letters still go to S3.
 * Retention 0 days: everything terminal is past its retention at once.
 */
const ENV = { HOOKLINE_RETENTION_DELIVERED_DAYS: '0', HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0' };

describe('delivered deliveries go by TTL, dead letters through the archive (the default)', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack({ env: ENV });
    stack.receiver.script('/ttl-bad', [], { status: 422, body: 'nope' });
  });
  after(async () => stack.stop());

  it('the archive run takes the dead letters only; a delivered row stays for TTL, due at the end of its retention', async () => {
    await stack.subscribe('/ttl-ok', { eventTypes: ['ttl.ok'] });
    await stack.subscribe('/ttl-bad', { eventTypes: ['ttl.bad'] });
    const ok = await Promise.all([1, 2, 3].map((n) => stack.publish('ttl.ok', { n })));
    const bad = await Promise.all([1, 2].map((n) => stack.publish('ttl.bad', { n })));
    const delivered = await Promise.all(ok.map((p) => stack.waitForState(p.deliveryIds[0]!, ['delivered'])));
    for (const p of bad) await stack.waitForState(p.deliveryIds[0]!, ['failed']);

    const deps = archiverDepsOf(stack);
    const report = await runArchive(deps, { budget: { deadlineMs: Date.now() + 60_000 } });
    assert.equal(report.kind, 'done');
    assert.equal(report.archived, 2, 'the two dead letters, not the three delivered');

    for (const p of bad) assert.equal((await stack.api.get(`/v1/deliveries/${p.deliveryIds[0]}`)).status, 404);
    const db = documentClient(stack.runtime.clients.dynamodb);
    for (const d of delivered) {
      assert.equal((await stack.api.get(`/v1/deliveries/${d.id}`)).status, 200, 'still readable until TTL takes it');
      const row = (
        await db.send(new GetCommand({ TableName: stack.runtime.env.DELIVERIES_TABLE!, Key: deliveryKey(d.id)! }))
      ).Item!;
      // Retention 0 days and no net: TTL is due the moment the delivery finished.
      assert.equal(row.expiresAt, Math.floor(Date.parse(d.updatedAt) / 1000));
    }
  });
});

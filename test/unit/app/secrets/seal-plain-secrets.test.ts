import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sealPlainSecrets } from '#app/secrets/seal-plain-secrets.ts';
import { aSubscription, fakeDeps, TEST_SECRET, TEST_SECRETS_CIPHER } from '#test/fakes.ts';

describe('sealPlainSecrets: the migration of rows from before sealing', () => {
  it('seals each plain-text row, leaves sealed ones alone, and a second run changes nothing', async () => {
    const deps = fakeDeps();
    const sealed = aSubscription({ id: 'sub_sealed' });
    deps.subscriptions.items.set(
      'sub_plain',
      aSubscription({ id: 'sub_plain', secrets: { scheme: 'plain', secrets: [TEST_SECRET] } }),
    );
    deps.subscriptions.items.set('sub_sealed', sealed);

    assert.equal(await sealPlainSecrets(deps), 1);

    const migrated = deps.subscriptions.items.get('sub_plain')!.secrets;
    assert.equal(migrated.scheme, 'local-v1');
    assert.ok(!JSON.stringify(migrated).includes('whsec_'));
    assert.deepEqual(
      await TEST_SECRETS_CIPHER.open('sub_plain', migrated as Exclude<typeof migrated, { scheme: 'plain' }>),
      [TEST_SECRET],
    );
    assert.deepEqual(deps.subscriptions.items.get('sub_sealed'), sealed);
    assert.equal(await sealPlainSecrets(deps), 0);
  });
});

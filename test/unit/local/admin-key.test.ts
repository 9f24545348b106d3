import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminKeyError, checkAdminKey, checkConfiguredAdminKey, MIN_ADMIN_KEY_LENGTH } from '#local/admin-key.ts';
import { banner } from '#local/banner.ts';

describe('admin key length', () => {
  it('accepts 24 characters and refuses 23, from a variable or a file', () => {
    assert.equal(MIN_ADMIN_KEY_LENGTH, 24);
    assert.equal(checkAdminKey('k'.repeat(24), { variable: 'HOOKLINE_ADMIN_KEY' }), 'k'.repeat(24));
    assert.throws(() => checkAdminKey('k'.repeat(23), { variable: 'HOOKLINE_ADMIN_KEY' }), (e: unknown) => e instanceof AdminKeyError && /HOOKLINE_ADMIN_KEY is 23 characters long; it must be at least 24: unset it/.test(e.message));
    assert.throws(() => checkAdminKey('', { file: '/d/admin-key' }), (e: unknown) => e instanceof AdminKeyError && /\/d\/admin-key is 0 characters long; it must be at least 24: delete the file/.test(e.message));
  });

  it('checks what npm start will use: the variable first, else the file if there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-admin-key-'));
    assert.doesNotThrow(() => checkConfiguredAdminKey(dir, {}), 'no file yet: a long one is generated');
    writeFileSync(join(dir, 'admin-key'), 'short\n');
    assert.throws(() => checkConfiguredAdminKey(dir, {}), /admin-key is 5 characters long/);
    assert.doesNotThrow(() => checkConfiguredAdminKey(dir, { HOOKLINE_ADMIN_KEY: 'hk_admin_long_enough_0123456789' }), 'the variable wins over the file');
  });
});

describe('npm start banner', () => {
  const runtime = {
    url: 'http://127.0.0.1:3000',
    adminKey: 'hk_admin_secret_value_0123456789',
    dataDir: '/data',
    endpoints: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:2', s3: 'http://127.0.0.1:2', lambda: 'http://127.0.0.1:3' },
    embedded: { dynamodb: true, sqs: true, s3: true },
    resourcePrefix: '',
    queues: { urls: { ingest: 'http://127.0.0.1:2/000000000000/hookline-ingest' } },
  };

  it('never shows a key from HOOKLINE_ADMIN_KEY, only where it came from', () => {
    const text = banner(runtime, { adminKeyFromEnvironment: true, allowPrivate: true });
    assert.ok(!text.includes(runtime.adminKey));
    assert.match(text, /Admin key {2}from HOOKLINE_ADMIN_KEY \(not shown\)/);
  });

  it('shows a generated key with the file that keeps it', () => {
    assert.match(banner(runtime, { adminKeyFromEnvironment: false, allowPrivate: false }), /Admin key {2}hk_admin_secret_value_0123456789 {3}\(kept in \/data\/admin-key\)/);
  });
});

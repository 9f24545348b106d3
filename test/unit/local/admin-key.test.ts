import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminKeyError, checkAdminKey, checkConfiguredAdminKey, MIN_ADMIN_KEY_LENGTH } from '#local/admin-key.ts';

describe('admin key length', () => {
  it('accepts 24 characters and refuses 23, from a variable or a file', () => {
    assert.equal(MIN_ADMIN_KEY_LENGTH, 24);
    assert.equal(checkAdminKey('k'.repeat(24), { variable: 'HOOKLINE_ADMIN_KEY' }), 'k'.repeat(24));
    assert.throws(
      () => checkAdminKey('k'.repeat(23), { variable: 'HOOKLINE_ADMIN_KEY' }),
      (e: unknown) =>
        e instanceof AdminKeyError &&
        /HOOKLINE_ADMIN_KEY is 23 characters long; it must be at least 24: unset it/.test(e.message),
    );
    assert.throws(
      () => checkAdminKey('', { file: '/d/admin-key' }),
      (e: unknown) =>
        e instanceof AdminKeyError &&
        /\/d\/admin-key is 0 characters long; it must be at least 24: delete the file/.test(e.message),
    );
  });

  it('checks what npm start will use: the variable first, else the file if there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-admin-key-'));
    assert.doesNotThrow(() => checkConfiguredAdminKey(dir, {}), 'no file yet: a long one is generated');
    writeFileSync(join(dir, 'admin-key'), 'short\n');
    assert.throws(() => checkConfiguredAdminKey(dir, {}), /admin-key is 5 characters long/);
    assert.doesNotThrow(
      () => checkConfiguredAdminKey(dir, { HOOKLINE_ADMIN_KEY: 'hk_admin_long_enough_0123456789' }),
      'the variable wins over the file',
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FolderDashboardAssets } from '#adapters/folder-dashboard-assets.ts';

describe('the dashboard files from a folder (the api bundle on AWS)', () => {
  it('reads each file once and keeps it; a file the folder lacks is undefined', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookline-assets-'));
    try {
      writeFileSync(join(dir, 'index.html'), '<html>');
      writeFileSync(join(dir, 'app.js'), 'js');
      const assets = new FolderDashboardAssets(pathToFileURL(`${dir}/`));
      assert.equal(await assets.file('index.html'), '<html>');
      assert.equal(await assets.file('app.css'), undefined);
      writeFileSync(join(dir, 'app.js'), 'changed');
      assert.equal(await assets.file('app.js'), 'js', 'read once per container');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

/** Lints `source` as a test file of this repository, with its biome.jsonc: the exit code and what Biome said. */
function lint(source: string): { readonly status: number | null; readonly output: string } {
  // Inside the repository: Biome reads the configuration of the folder it lints, and refuses paths outside it.
  const dir = mkdtempSync(join(ROOT, 'test', '.lint-probe-'));
  try {
    writeFileSync(join(dir, 'probe.test.ts'), source);
    const run = spawnSync(BIOME, ['lint', '--colors=off', relative(ROOT, dir)], { cwd: ROOT, encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('npm run lint refuses a test that does not run everything', () => {
  it('a focused test (.only) fails the lint, naming the rule', () => {
    const result = lint("import { it } from 'node:test';\n\nit.only('x', () => {});\n");
    assert.notEqual(result.status, 0);
    assert.match(result.output, /noFocusedTests/);
  });

  it('a skipped test (.skip) fails the lint, naming the rule', () => {
    const result = lint("import { describe } from 'node:test';\n\ndescribe.skip('x', () => {});\n");
    assert.notEqual(result.status, 0);
    assert.match(result.output, /noSkippedTests/);
  });

  it('a plain test passes', () => {
    const result = lint("import { it } from 'node:test';\n\nit('x', () => {});\n");
    assert.equal(result.status, 0, result.output);
  });
});

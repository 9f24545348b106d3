/**
 * The delivery state machine lives in lambdas/domain alone: product code names a state through
 * STATE.*, a predicate (isLive, isDeadLetter, ...) or an action's transition, never a quoted
 * literal, so that changing the diagram cannot miss a copy of it. Tests and scripts/ are
 * excluded: they are API clients that read states as the API spells them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_STATES } from '#domain/states.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PRODUCT_DIRS = ['lambdas', 'local', 'lib', 'cli', 'bin'];
const DOMAIN = join('lambdas', 'domain') + sep;
const SOURCE = /\.(ts|mts|js|mjs)$/;

/** A delivery state between matching quotes: 'pending', "failed", `in_flight`. */
const STATE_LITERAL = new RegExp(`(['"\`])(${DELIVERY_STATES.join('|')})\\1`, 'g');

/** Every quoted delivery-state literal in `text`, as `line: literal`. */
function stateLiterals(text: string): string[] {
  return text.split('\n').flatMap((line, i) => [...line.matchAll(STATE_LITERAL)].map((m) => `${i + 1}: ${m[0]}`));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('delivery-state literals', () => {
  it('the matcher finds a quoted state in any quote style and ignores the word inside other text', () => {
    const sample = [
      "if (d.state === 'pending') return;",
      'const s = "in_flight";',
      'const t = `failed`;',
      "log('delivery failed'); const ok = STATE.delivered; // expired",
      "['expired', 'delivered']",
    ].join('\n');

    assert.deepEqual(stateLiterals(sample), [
      "1: 'pending'",
      '2: "in_flight"',
      '3: `failed`',
      "5: 'expired'",
      "5: 'delivered'",
    ]);
  });

  it('reads the product source (the scan is not vacuous)', () => {
    const files = PRODUCT_DIRS.flatMap(sourceFiles);
    assert.ok(files.includes(join('lambdas', 'app', 'send', 'send.ts')), 'send.ts is scanned');
    assert.ok(files.includes(join('lambdas', 'domain', 'states.ts')), 'the domain is listed, then exempted');
    assert.ok(
      stateLiterals(readFileSync(join(ROOT, 'lambdas', 'domain', 'states.ts'), 'utf8')).length > 0,
      'the domain itself spells the states',
    );
  });

  it('no product file outside lambdas/domain spells a delivery state as a literal', () => {
    const offenders = PRODUCT_DIRS.flatMap(sourceFiles)
      .filter((file) => !file.startsWith(DOMAIN))
      .flatMap((file) => stateLiterals(readFileSync(join(ROOT, file), 'utf8')).map((hit) => `${file}:${hit}`));

    assert.deepEqual(
      offenders,
      [],
      'use STATE.*, isLive/isDeadLetter/isTerminal or an action from lambdas/domain/states.ts',
    );
  });
});

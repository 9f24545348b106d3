/**
 * The attempt path stays small enough to hold in one's head (docs/design.md, "How a delivery
 * moves"): lambdas/app/send/ at most 550 lines, no function in it over 40. A function counts
 * from its first line to its last, as formatted, so a long one cannot hide in a long line.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SEND = join(import.meta.dirname, '..', '..', '..', 'lambdas', 'app', 'send');
const MAX_LINES = 550;
const MAX_FUNCTION_LINES = 40;

const files = readdirSync(SEND)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ name: f, text: readFileSync(join(SEND, f), 'utf8') }));

/** Every function-like node of `text` (declarations, methods, arrows, expressions) with its length in lines. */
function functionLengths(name: string, text: string): { readonly where: string; readonly lines: number }[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: { where: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const label = 'name' in node && node.name ? node.name.getText(source) : 'an anonymous function';
      found.push({ where: `${name}:${first + 1} ${label}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the attempt path (lambdas/app/send/) stays small', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    const lines = files.reduce((n, f) => n + f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0), 0);
    assert.ok(lines <= MAX_LINES, `${lines} lines`);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const all = files.flatMap((f) => functionLengths(f.name, f.text));
    assert.ok(all.length > 10, 'the functions were found');
    const long = all.filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${f.where}: ${f.lines} lines`);
    assert.deepEqual(long, []);
  });

  it('measures a function from its first line to its last', () => {
    const [f] = functionLengths('probe.ts', 'function probe() {\n  return 1;\n}\n');
    assert.deepEqual(f, { where: 'probe.ts:1 probe', lines: 3 });
  });
});

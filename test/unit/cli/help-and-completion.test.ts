import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram, main } from '#cli/main.ts';

const CLI_DIR = new URL('../../../cli/', import.meta.url);

/** Runs the CLI in-process; stdout and the exit code. */
async function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (write: (s: string) => void) =>
    new Writable({ write: (chunk, _e, done) => (write(chunk.toString()), done()) });
  const code = await main(['node', 'hookline', ...args], {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: {},
  });
  return { code, stdout, stderr };
}

/** Every command path of the program (`subscriptions update`). */
function paths(command: Command, prefix = ''): string[] {
  return command.commands.flatMap((c) => {
    const path = prefix ? `${prefix} ${c.name()}` : c.name();
    return [path, ...paths(c, path)];
  });
}

describe('hookline --help', () => {
  it('names every environment variable the CLI reads', async () => {
    const read = new Set(
      readdirSync(CLI_DIR)
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) =>
          [...readFileSync(new URL(f, CLI_DIR), 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!),
        ),
    );
    assert.ok(read.has('HOOKLINE_API_URL') && read.size >= 10, `found ${[...read].join(', ')}`);
    const help = (await run(['--help'])).stdout;
    assert.deepEqual(
      [...read].filter((name) => !help.includes(name)),
      [],
      'variables the CLI reads but --help does not name',
    );
  });

  it('lists the new commands', async () => {
    const all = paths(buildProgram().program);
    for (const path of [
      'publish',
      'events list',
      'events show',
      'subscriptions get',
      'subscriptions update',
      'subscriptions delete',
      'subscriptions rotate-secret',
      'subscriptions test',
      'deliveries list',
      'completion',
    ]) {
      assert.ok(all.includes(path), path);
    }
  });
});

describe('hookline completion', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    it(`${shell}: a script that knows every command and option of the program`, async () => {
      const { code, stdout } = await run(['completion', shell]);
      assert.equal(code, 0);
      const program = buildProgram().program;
      for (const path of paths(program)) assert.ok(stdout.includes(`'${path}')`), `completes after ${path}`);
      assert.ok(stdout.includes('--rate-limit') && stdout.includes('--subscription'));
      if (shell === 'zsh') assert.match(stdout, /^autoload -U \+X bashcompinit && bashcompinit\n/);
    });
  }

  it('bash: the script parses and completes subcommands and their options', async () => {
    const script = (await run(['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _hookline; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      );
    const sub = complete(['hookline', 'subscriptions', 'ro']);
    assert.equal(sub.status, 0, sub.stderr);
    assert.equal(sub.stdout.trim(), 'rotate-secret');
    assert.equal(complete(['hookline', '--json', 'deliveries', 'list', '--sub']).stdout.trim(), '--subscription');
    assert.equal(complete(['hookline', 'ev']).stdout.trim(), 'events event-types');
    assert.equal(complete(['hookline', 'event-types', 'p']).stdout.trim(), 'put');
  });

  it('refuses another shell (exit 2)', async () => {
    const { code, stderr } = await run(['completion', 'fish']);
    assert.equal(code, 2);
    assert.match(stderr, /bash or zsh/);
  });
});

import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

/** The machine a figure was measured on, as one Markdown line. */
export function describeMachine(): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB memory, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** The commit a figure was measured at (short hash), or `unknown` outside a git checkout. */
export function currentCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout: the commit is simply not known.
    return 'unknown';
  }
}

/** The command line that produced a section, as a reader would type it. */
export function commandLine(script: string): string {
  const args = process.argv.slice(2);
  return `npm run ${script}${args.length ? ` -- ${args.join(' ')}` : ''}`;
}

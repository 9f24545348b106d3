import { printable, printableJson } from './printable.ts';

/**
 * Where results and progress go: results to stdout (a JSON document with --json), progress to
 * stderr. Every human-readable line passes through `printable` here, the one place text
 * reaches the terminal, so control characters from the service are shown, never obeyed.
 */
export class Output {
  constructor(
    private readonly options: { readonly json: boolean; readonly quiet: boolean },
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  result(data: unknown, human: () => string): void {
    this.stdout.write(
      this.options.json ? `${printableJson(data)}\n` : `${printable(human(), { keepNewlines: true })}\n`,
    );
  }

  progress(message: string): void {
    if (!this.options.quiet) this.stderr.write(`${printable(message, { keepNewlines: true })}\n`);
  }

  error(message: string): void {
    this.stderr.write(`hookline: ${printable(message, { keepNewlines: true })}\n`);
  }
}

/** A plain aligned table: no colours, so it pipes and greps cleanly. Cells are escaped first, so widths are what is shown. */
export function table(rows: readonly (readonly unknown[])[], header: readonly string[]): string {
  const cells = [
    header,
    ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : printable(String(c))))),
  ];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i]!))).join('  '))
    .join('\n');
}

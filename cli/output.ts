/** Where results and progress go: results to stdout (a JSON document with --json), progress to stderr. */
export class Output {
  constructor(
    private readonly options: { readonly json: boolean; readonly quiet: boolean },
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  result(data: unknown, human: () => string): void {
    this.stdout.write(this.options.json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
  }

  progress(message: string): void {
    if (!this.options.quiet) this.stderr.write(`${message}\n`);
  }

  error(message: string): void {
    this.stderr.write(`hookline: ${message}\n`);
  }
}

/** A plain aligned table: no colours, so it pipes and greps cleanly. */
export function table(rows: readonly (readonly unknown[])[], header: readonly string[]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i]!))).join('  ')).join('\n');
}

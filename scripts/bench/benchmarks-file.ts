import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const FILE = resolve(import.meta.dirname, '../../BENCHMARKS.md');
const MARKER = '<!-- sections: newest first -->';
const HEADER = `# Benchmarks

Figures measured on the machine named in each section, with the exact command that produced
them. \`npm run bench\` (\`-- --quick\` for a short run) measures cost, engine overhead, the local
runtime end to end, retry timing and cold start; \`npm run chaos\` (\`-- --quick\`) runs the
reliability harness. Each run adds a dated section below; older sections are kept for comparison.

${MARKER}
`;

/** Adds a dated section at the top of BENCHMARKS.md, keeping every earlier section below it. */
export function addSection(title: string, body: string): string {
  const current = existsSync(FILE) ? readFileSync(FILE, 'utf8') : HEADER;
  const at = current.indexOf(MARKER);
  const head = at >= 0 ? current.slice(0, at + MARKER.length) : HEADER.trimEnd();
  const rest = at >= 0 ? current.slice(at + MARKER.length) : `\n${current}`;
  const section = `\n\n## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${title}\n\n${body.trim()}\n`;
  writeFileSync(FILE, `${head}${section}${rest.replace(/^\n+/, '\n')}`);
  return FILE;
}

/** A Markdown table from a header row and rows. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

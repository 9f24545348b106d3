import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { AREAS, CHAOS_HEADING, areaByKey, areaOfHeading, tableCells, type AreaKey } from './areas.ts';

/**
 * BENCHMARKS.md holds the current figures, one section per area (areas.ts), each saying the
 * machine, command, commit and date it was measured; a run replaces the sections of the areas
 * it measured and leaves every other byte as it was, and adds a row to the Trend table at the
 * end (newest first, the last TREND_ROWS runs). Earlier figures are in git history.
 *
 * The layout, as the code reads it back: everything before the first area is the header, kept
 * as it is; an area starts at its `<!-- area: key -->` line, followed by its `### ` heading, and
 * runs to the next area or to the `<!-- trend -->` line, after which comes the Trend table. A
 * file that does not read back this way is never rewritten (recordRun).
 */
export const BENCHMARKS_FILE = resolve(import.meta.dirname, '../../BENCHMARKS.md');
export const TREND_ROWS = 30;

const AREA_MARKER = /^<!-- area: ([a-z0-9-]+) -->$/;
const TREND_MARKER = '<!-- trend -->';
/** The file's layout until 2026-12-02: a dated section per run, newest first, below this line. */
const LEGACY_MARKER = '<!-- sections: newest first -->';

export const HEADER = `# Benchmarks

The current figures, one section per area, each with the machine, the command, the commit and
the date it was measured: areas can come from different runs. \`npm run bench\` (\`-- --quick\`
for a short run, \`-- --only=cost,overhead,e2e,retry,notices,rate-limit,routing,cold\` for some
areas) measures cost, engine overhead, the local runtime end to end, retry timing, failure
notices, the rate limit, fan-out routing and cold start; \`npm run chaos\` (\`-- --quick\`) runs
the reliability harness, on the embedded dynalite or (\`-- --dynamodb-local\`) on Amazon's DynamoDB Local. A run replaces the sections of the areas it measured, leaves the others
as they are, and adds a row to the [Trend](#trend) table at the end. Earlier figures, and every
run's full sections, are in git history (\`git log -p BENCHMARKS.md\`). The charts in
\`benchmarks/\` are redrawn by the run that measures their area.

## Current figures

`;

const TREND_PREAMBLE = `${TREND_MARKER}
## Trend

One row per run, newest first, the last ${TREND_ROWS} (older rows are in git history), with a few
headline figures of each area the run measured; a cell is empty where it did not measure that
area or, for runs recorded before this table, where the figure could not be read off their
sections. fo1 / fo10: fan-out 1 / 10; ingest: published to the ingest queue; HTTP: one event per
publish over HTTP; $ per million deliveries.

`;

const FIXED_COLUMNS = ['date (UTC)', 'commit', 'command'] as const;
export const TREND_COLUMNS: readonly string[] = [...FIXED_COLUMNS, ...AREAS.map((a) => a.trendColumn)];

/** What a section says about the run that measured it. */
export interface Run {
  /** When it was measured, `YYYY-MM-DD HH:MM UTC`. */
  readonly date: string;
  readonly commit: string;
  /** The command as typed, e.g. `npm run bench -- --only=routing`. */
  readonly command: string;
  /** What follows the command, e.g. `(3 runs per figure, medians), 2.6 minutes`. */
  readonly commandDetail?: string;
  readonly machine: string;
  /** Further lines, e.g. the load average. */
  readonly notes?: readonly string[];
}

/** One area a run measured: its key (areas.ts) and its section as rendered, starting with its `### ` heading. */
export interface Measured {
  readonly key: AreaKey;
  readonly markdown: string;
}

/** The file cannot be read back as the layout above: it is left as it is. */
export class BenchmarksFileError extends Error {
  override readonly name = 'BenchmarksFileError';
}

interface Trend {
  readonly preamble: string;
  readonly columns: readonly string[];
  readonly headerLine: string;
  readonly separatorLine: string;
  readonly rowLines: readonly string[];
  readonly tail: string;
}

interface BenchmarksDoc {
  readonly head: string;
  readonly areas: { key: string; text: string }[];
  trend: Trend;
}

/** `YYYY-MM-DD HH:MM UTC` of a time. */
export const utcMinute = (at = new Date()) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The lines a section (and the console) shows about its run. */
export function runLines(run: Run): string[] {
  return [
    `- Date: ${run.date}`,
    `- Commit: ${run.commit}`,
    `- Command: \`${run.command}\`${run.commandDetail ? ` ${run.commandDetail}` : ''}`,
    `- Machine: ${run.machine}`,
    ...(run.notes ?? []).map((n) => `- ${n}`),
  ];
}

function renderArea(run: Run, m: Measured): string {
  const [heading = '', ...rest] = m.markdown.trim().split('\n');
  if (!heading.startsWith('### '))
    throw new Error(`the ${m.key} section does not start with a ### heading: ${heading}`);
  const body = rest.join('\n').trim();
  return [`<!-- area: ${m.key} -->`, heading, '', ...runLines(run), '', ...(body ? [body, ''] : []), ''].join('\n');
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const tableLine = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |\n`;

function trendRow(run: Run, measured: readonly Measured[]): Map<string, string> {
  const cells = new Map<string, string>([
    ['date (UTC)', run.date.replace(/ UTC$/, '')],
    // A commit with words after it (a hand-written note) is its first word here; the section keeps the note.
    ['commit', run.commit.split(/\s+/)[0] ?? ''],
    ['command', `\`${run.command}\``],
  ]);
  for (const m of measured) {
    const area = areaByKey(m.key);
    if (area) cells.set(area.trendColumn, area.headline(m.markdown));
  }
  return cells;
}

function freshDoc(): BenchmarksDoc {
  return {
    head: HEADER,
    areas: [],
    trend: {
      preamble: TREND_PREAMBLE,
      columns: TREND_COLUMNS,
      headerLine: tableLine(TREND_COLUMNS),
      separatorLine: tableLine(TREND_COLUMNS.map(() => '---')),
      rowLines: [],
      tail: '',
    },
  };
}

const serialize = (doc: BenchmarksDoc) =>
  doc.head +
  doc.areas.map((a) => a.text).join('') +
  doc.trend.preamble +
  doc.trend.headerLine +
  doc.trend.separatorLine +
  doc.trend.rowLines.join('') +
  doc.trend.tail;

function parseTrend(lines: readonly string[]): Trend {
  const at = lines.findIndex((l) => l.startsWith('|'));
  if (at < 0) throw new BenchmarksFileError('the Trend section has no table');
  const headerLine = lines[at]!;
  const separatorLine = lines[at + 1] ?? '';
  const columns = tableCells(headerLine);
  if (columns[0] !== FIXED_COLUMNS[0])
    throw new BenchmarksFileError(`the Trend table's first column is "${columns[0]}", not "${FIXED_COLUMNS[0]}"`);
  if (!/^\|(\s*:?-+:?\s*\|)+\s*$/.test(separatorLine) || tableCells(separatorLine).length !== columns.length)
    throw new BenchmarksFileError('the Trend table has no separator line under its header');
  if (!separatorLine.endsWith('\n')) throw new BenchmarksFileError('the Trend table ends the file without a line end');
  let end = at + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  const rowLines = lines.slice(at + 2, end);
  for (const line of rowLines) {
    if (tableCells(line).length !== columns.length)
      throw new BenchmarksFileError(
        `a Trend row has ${tableCells(line).length} cells for ${columns.length} columns: ${line.trim()}`,
      );
    if (!line.endsWith('\n')) throw new BenchmarksFileError('the Trend table ends the file without a line end');
  }
  return {
    preamble: lines.slice(0, at).join(''),
    columns,
    headerLine,
    separatorLine,
    rowLines,
    tail: lines.slice(end).join(''),
  };
}

/** Reads BENCHMARKS.md back (the layout above, or the dated-runs layout before it, converted); throws BenchmarksFileError when it cannot. */
export function parseBenchmarks(text: string): BenchmarksDoc {
  const lines = text.split(/(?<=\n)/);
  const trendAt = lines.flatMap((l, i) => (l.trimEnd() === TREND_MARKER ? [i] : []));
  if (!trendAt.length && lines.some((l) => l.trimEnd() === LEGACY_MARKER)) return parseBenchmarks(convertLegacy(text));
  if (trendAt.length !== 1)
    throw new BenchmarksFileError(`expected one "${TREND_MARKER}" line, found ${trendAt.length}`);
  const markers = lines.flatMap((l, i) => {
    const key = l.trimEnd().match(AREA_MARKER)?.[1];
    return key ? [{ key, at: i }] : [];
  });
  if (markers.some((m) => m.at > trendAt[0]!))
    throw new BenchmarksFileError('an area marker comes after the Trend table');
  const seen = new Set<string>();
  const areas = markers.map((m, i) => {
    if (seen.has(m.key)) throw new BenchmarksFileError(`the area "${m.key}" is in the file twice`);
    seen.add(m.key);
    if (!lines[m.at + 1]?.startsWith('### '))
      throw new BenchmarksFileError(`the area "${m.key}" has no ### heading on the line after its marker`);
    return { key: m.key, text: lines.slice(m.at, markers[i + 1]?.at ?? trendAt[0]).join('') };
  });
  const doc = {
    head: lines.slice(0, markers[0]?.at ?? trendAt[0]).join(''),
    areas,
    trend: parseTrend(lines.slice(trendAt[0])),
  };
  // Whatever is not replaced is written back as it was read: a parse that would not is refused.
  if (serialize(doc) !== text) throw new BenchmarksFileError('the file does not read back byte for byte');
  return doc;
}

function addTrendRow(trend: Trend, cells: ReadonlyMap<string, string>): Trend {
  let { columns, headerLine, separatorLine, rowLines } = trend;
  const missing = TREND_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length) {
    // A column this code has and the file does not (a new area): added at the end, earlier rows left empty in it.
    const pad = missing.map(() => '');
    rowLines = rowLines.map((l) => tableLine([...tableCells(l).map((c) => c.replace(/\\\|/g, '|')), ...pad]));
    columns = [...columns, ...missing];
    headerLine = tableLine(columns);
    separatorLine = tableLine(columns.map(() => '---'));
  }
  const line = tableLine(columns.map((c) => cells.get(c) ?? ''));
  return { ...trend, columns, headerLine, separatorLine, rowLines: [line, ...rowLines].slice(0, TREND_ROWS) };
}

const order = (key: string) => {
  const i = AREAS.findIndex((a) => a.key === key);
  return i < 0 ? AREAS.length : i;
};

function apply(doc: BenchmarksDoc, run: Run, measured: readonly Measured[]): void {
  const keys = measured.map((m) => m.key);
  if (new Set(keys).size !== keys.length) throw new Error(`an area measured twice in one run: ${keys.join(', ')}`);
  for (const m of measured) {
    const text = renderArea(run, m);
    const at = doc.areas.findIndex((a) => a.key === m.key);
    if (at >= 0) doc.areas[at] = { key: m.key, text };
    else {
      // A new area goes where areas.ts puts it among those the file has.
      const before = doc.areas.findIndex((a) => order(a.key) > order(m.key));
      doc.areas.splice(before < 0 ? doc.areas.length : before, 0, { key: m.key, text });
    }
  }
  doc.trend = addTrendRow(doc.trend, trendRow(run, measured));
}

/** BENCHMARKS.md's text after a run (`current` undefined or blank: a new file); throws BenchmarksFileError when `current` cannot be read back. */
export function updateBenchmarks(current: string | undefined, run: Run, measured: readonly Measured[]): string {
  const doc = current === undefined || current.trim() === '' ? freshDoc() : parseBenchmarks(current);
  apply(doc, run, measured);
  return serialize(doc);
}

interface LegacyRun {
  readonly run: Run;
  readonly measured: Measured[];
}

function legacyRun(date: string, lines: readonly string[]): LegacyRun {
  let machine: string | undefined;
  let command: string | undefined;
  const notes: string[] = [];
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (line.startsWith('Machine: ')) machine = line.slice('Machine: '.length);
    else if (line.startsWith('Command: ')) command = line.slice('Command: '.length);
    else if (line.startsWith('Load average ')) notes.push(line);
    else break;
  }
  const where = `the ${date} section`;
  if (!machine || !command) throw new BenchmarksFileError(`${where} has no Machine: or Command: line`);
  // "…, linux/x64, commit ba2fa3b" (what a run wrote), or a note after the commit (added by hand).
  const m = machine.match(/^(.*), commit (.+)$/);
  const c = command.match(/^`([^`]+)`\s*(.*)$/);
  if (!c) throw new BenchmarksFileError(`${where}'s command is not in backticks: ${command}`);
  const run: Run = {
    date,
    machine: m ? m[1]! : machine,
    commit: m ? m[2]! : 'unknown',
    command: c[1]!,
    ...(c[2] ? { commandDetail: c[2] } : {}),
    notes,
  };

  const rest = lines.slice(i);
  const measured: Measured[] = [];
  const headingAt = rest.flatMap((l, j) => (l.startsWith('### ') ? [j] : []));
  const before = rest
    .slice(0, headingAt[0] ?? rest.length)
    .join('\n')
    .trim();
  if (before) {
    // The chaos report had no heading: its whole section is the area.
    if (!run.command.startsWith('npm run chaos') || headingAt.length)
      throw new BenchmarksFileError(`${where} has text that belongs to no area: ${before.slice(0, 80)}`);
    measured.push({ key: 'chaos', markdown: `${CHAOS_HEADING}\n\n${before}` });
  }
  headingAt.forEach((at, j) => {
    const heading = rest[at]!;
    const area = areaOfHeading(heading);
    if (!area) throw new BenchmarksFileError(`${where} has a section of no known area: ${heading}`);
    if (measured.some((x) => x.key === area.key))
      throw new BenchmarksFileError(`${where} has two ${area.key} sections`);
    measured.push({
      key: area.key,
      markdown: rest
        .slice(at, headingAt[j + 1] ?? rest.length)
        .join('\n')
        .trim(),
    });
  });
  if (!measured.length) throw new BenchmarksFileError(`${where} measured nothing`);
  return { run, measured };
}

/**
 * The dated-runs layout (a section per run, newest first) in the current one: each area's newest
 * section with its run's machine, command, commit and date, and a Trend row per run.
 */
export function convertLegacy(text: string): string {
  const at = text.indexOf(LEGACY_MARKER);
  if (at < 0) throw new BenchmarksFileError(`no "${LEGACY_MARKER}" line`);
  const lines = text.slice(at + LEGACY_MARKER.length).split('\n');
  const starts = lines.flatMap((l, i) => (/^## \d{4}-\d\d-\d\d \d\d:\d\d UTC: /.test(l) ? [i] : []));
  if (lines.slice(0, starts[0] ?? lines.length).some((l) => l.trim()))
    throw new BenchmarksFileError('text before the first dated section');
  const runs = starts
    .map((s, i) =>
      legacyRun(
        lines[s]!.slice(3, 3 + '2026-12-02 14:42 UTC'.length),
        lines.slice(s + 1, starts[i + 1] ?? lines.length),
      ),
    )
    // Newest first, as the layout kept them; sorted in case a section was moved by hand.
    .sort((a, b) => (a.run.date < b.run.date ? 1 : a.run.date > b.run.date ? -1 : 0));
  const doc = freshDoc();
  // Oldest first, so that each area ends with its newest section and the Trend table with the newest row on top.
  for (const { run, measured } of [...runs].reverse()) apply(doc, run, measured);
  return serialize(doc);
}

function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

export interface Recorded {
  /** The file the run's sections were written to. */
  readonly file: string;
  /** False when BENCHMARKS.md could not be read back: it was left as it was, and the run went to a file beside it. */
  readonly merged: boolean;
  readonly problem?: string;
}

/**
 * Records a run in BENCHMARKS.md. A file that cannot be read back is not touched: the run's
 * sections go to a file of their own beside it (BENCHMARKS.<date>.md, in the same layout), to be
 * merged by hand once the file is fixed, so that neither the old figures nor the new are lost.
 */
export function recordRun(run: Run, measured: readonly Measured[], file = BENCHMARKS_FILE): Recorded {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  let next: string;
  try {
    next = updateBenchmarks(current, run, measured);
  } catch (error) {
    if (!(error instanceof BenchmarksFileError)) throw error;
    const stem = join(
      dirname(file),
      `${basename(file, '.md')}.${run.date.replace(/ UTC$/, '').replace(' ', 'T').replace(':', '')}`,
    );
    let aside = `${stem}.md`;
    for (let n = 2; existsSync(aside); n++) aside = `${stem}-${n}.md`;
    writeAtomically(aside, updateBenchmarks(undefined, run, measured));
    return { file: aside, merged: false, problem: error.message };
  }
  writeAtomically(file, next);
  return { file, merged: true };
}

/** What a run prints once recorded; sets a failing exit code when BENCHMARKS.md could not be updated. */
export function reportRecorded(recorded: Recorded): void {
  if (recorded.merged) console.log(`written to ${recorded.file}`);
  else {
    console.error(
      `BENCHMARKS.md left as it was: ${recorded.problem}. This run's sections are in ${recorded.file}: fix BENCHMARKS.md, then merge them into it by hand.`,
    );
    process.exitCode = 1;
  }
}

/** A Markdown table from a header row and rows. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

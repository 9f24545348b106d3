/**
 * The areas BENCHMARKS.md holds, in the file's order. Each has a stable key (what a run names it
 * by: the bench's `--only=` names, `chaos` and `scale-model`), the start of the `### ` heading its renderer
 * writes (the rest of a heading may carry figures, such as "100,000 subscriptions"), and the
 * headline figures the Trend table keeps of it, read off the rendered section.
 */
export type AreaKey =
  | 'cost'
  | 'overhead'
  | 'e2e'
  | 'retry'
  | 'notices'
  | 'rate-limit'
  | 'routing'
  | 'cold'
  | 'chaos'
  | 'chaos-dynamodb-local'
  | 'scale-model';

export interface Area {
  readonly key: AreaKey;
  /** How the renderer's heading starts (scripts/bench/report.ts, cost-report.ts, notices.ts, rate-limit.ts, routing.ts; scripts/chaos/report.ts; scripts/scale-model/report.ts). */
  readonly heading: string;
  /** The Trend table's column for this area. */
  readonly trendColumn: string;
  /** The headline figures of a rendered section, as one cell ('' when none can be read off). */
  readonly headline: (markdown: string) => string;
}

/** The chaos report's heading (it has no figures in it). */
export const CHAOS_HEADING = '### Chaos: SIGKILLs, a queue purge and a misbehaving receiver';
/** The same report with the runtime on DynamoDB Local (`npm run chaos -- --dynamodb-local`). */
export const CHAOS_DYNAMODB_LOCAL_HEADING =
  '### Chaos on DynamoDB Local: SIGKILLs, a queue purge and a misbehaving receiver';

interface MarkdownTable {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** Splits a Markdown table line into its cells (a `\|` is part of a cell). */
export function tableCells(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** Every table in a Markdown text: its header row and its body rows. */
export function readTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let block: string[] = [];
  const flush = () => {
    if (block.length >= 2) tables.push({ header: tableCells(block[0]!), rows: block.slice(2).map(tableCells) });
    block = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) block.push(line);
    else flush();
  }
  flush();
  return tables;
}

const plain = (cell: string | undefined) => cell?.replace(/\*\*/g, '').trim();
const firstWord = (cell: string | undefined) => plain(cell)?.split(/\s+/)[0] || undefined;

/** The first body row, in any table (or in the tables `where` picks), whose first cell passes `first`. */
function row(
  markdown: string,
  first: (cell: string) => boolean,
  where: (t: MarkdownTable) => boolean = () => true,
): readonly string[] | undefined {
  for (const t of readTables(markdown).filter(where)) {
    const found = t.rows.find((r) => first(plain(r[0]) ?? ''));
    if (found) return found;
  }
  return undefined;
}

/** The first body row of the table whose first header cell is `header`. */
const rowUnder = (markdown: string, header: string) =>
  readTables(markdown).find((t) => plain(t.header[0]) === header)?.rows[0];

/** Figures joined with " / ", a missing one as "–"; '' when none is there. */
function cell(parts: readonly (string | undefined)[]): string {
  return parts.some((p) => p) ? parts.map((p) => p || '–').join(' / ') : '';
}

function costHeadline(md: string): string {
  const main = (t: MarkdownTable) => /total per million/.test(t.header.at(-1) ?? '');
  const ingest = row(md, (c) => c === 'first try, fan-out 1, published to the ingest queue', main);
  const http = row(md, (c) => c === 'first try, fan-out 1, published over HTTP', main);
  const ingestCell = ingest && `${plain(ingest.at(-1))}${firstWord(ingest[1]) ? ` (${firstWord(ingest[1])})` : ''}`;
  return cell([ingestCell, plain(http?.at(-1))]);
}

function chaosHeadline(md: string): string {
  const lost = row(md, (c) => c === 'lost');
  const duplicates = row(md, (c) => c.startsWith('duplicates received'));
  const d = plain(duplicates?.[1])?.match(/^(\d+) \(([\d.]+ %)/);
  return cell([firstWord(lost?.[1]), d ? `${d[1]} (${d[2]})` : plain(duplicates?.[1])]);
}

export const AREAS: readonly Area[] = [
  {
    key: 'cost',
    heading: '### AWS cost per million deliveries',
    trendColumn: 'cost, $ per million: fo1 ingest (WRU) / fo1 HTTP',
    headline: costHeadline,
  },
  {
    key: 'overhead',
    heading: '### Engine overhead',
    trendColumn: 'overhead ÷ raw POSTs: in-memory / dynalite',
    headline: (md) =>
      cell([
        row(md, (c) => c.startsWith('sender path, in-memory stores'))?.[2],
        row(md, (c) => c.startsWith('sender path, real DynamoDB adapters'))?.[2],
      ]),
  },
  {
    key: 'e2e',
    heading: '### Local runtime end to end',
    trendColumn: 'end to end, deliveries/s: fo1 / fo10 / ceiling',
    headline: (md) =>
      cell([
        row(md, (c) => c.startsWith('sustained deliveries per second, fan-out 1 ('))?.[1],
        row(md, (c) => c.startsWith('sustained deliveries per second, fan-out 10 ('))?.[1],
        row(md, (c) => c.startsWith('the ceiling:'))?.[1],
      ]),
  },
  {
    key: 'retry',
    heading: '### Retry timing accuracy',
    trendColumn: 'retry, ms late: p95 / max (early)',
    headline: (md) => {
      const r = rowUnder(md, 'retries');
      return r ? `${cell([r[3], r[4]])} (${r[1] ?? '–'})` : '';
    },
  },
  {
    key: 'notices',
    heading: '### Failure notices',
    trendColumn: 'notices, WRU per delivery',
    headline: (md) => cell([row(md, (c) => c === 'write units per delivery')?.[1]]),
  },
  {
    key: 'rate-limit',
    heading: '### Rate limit',
    trendColumn: 'rate limit: most in 1 s / bound',
    headline: (md) => {
      const r = rowUnder(md, 'most attempts started in any 1 s window');
      return cell([r?.[0], firstWord(r?.[1])]);
    },
  },
  {
    key: 'routing',
    heading: '### Fan-out routing',
    trendColumn: 'routing, RRU: per event / listing page',
    headline: (md) =>
      cell([
        plain(row(md, (c) => c.startsWith('read units per published event'))?.[1])?.split(' / ')[0],
        row(md, (c) => c.startsWith("a tenant's listing page"))?.[1],
      ]),
  },
  {
    key: 'cold',
    heading: '### Cold start',
    trendColumn: 'cold start, sender: size / init ms',
    headline: (md) => {
      const r = readTables(md)
        .find((t) => t.header[0] === 'function')
        ?.rows.find((x) => x[0] === 'sender');
      return cell([r?.[1], r?.[2]]);
    },
  },
  {
    key: 'chaos',
    // The whole heading: the one on DynamoDB Local starts with "### Chaos" too.
    heading: CHAOS_HEADING,
    trendColumn: 'chaos: lost / duplicates (% of delivered)',
    headline: chaosHeadline,
  },
  {
    key: 'chaos-dynamodb-local',
    heading: CHAOS_DYNAMODB_LOCAL_HEADING,
    trendColumn: 'chaos on DynamoDB Local: lost / duplicates',
    headline: chaosHeadline,
  },
  {
    key: 'scale-model',
    heading: '### Scale model',
    trendColumn: 'scale model, 10,000/s spread: delivered/s / p99 ms',
    headline: (md) => {
      // Columns: scenario, simulated time, delivered/s, counts, latency "p50 / p99".
      const r = row(md, (c) => c.startsWith('10,000 deliveries/s over'));
      return cell([r?.[2], r?.[4]?.split(' / ')[1]]);
    },
  },
];

/** The area a `### ` heading line belongs to, by how it starts. */
export function areaOfHeading(line: string): Area | undefined {
  return AREAS.find((a) => line === a.heading || line.startsWith(`${a.heading}:`) || line.startsWith(`${a.heading} `));
}

export const areaByKey = (key: string): Area | undefined => AREAS.find((a) => a.key === key);

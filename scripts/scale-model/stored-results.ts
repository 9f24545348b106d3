import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Run } from '../bench/benchmarks-file.ts';
import type { ScenarioResult } from './run-scenario.ts';

/**
 * Each scenario's last recorded run, one file a scenario (`benchmarks/scale-model/<key>.json`):
 * at full size the scenarios take hours of wall time together, more than one sitting, so each is
 * recorded as it ends and the BENCHMARKS.md area is rendered from every scenario's last run, each
 * row naming its own date, commit and command.
 */
export const STORED_DIR = resolve(import.meta.dirname, '../../benchmarks/scale-model');

/** A scenario's run as recorded: when, at which commit, by which command, on which machine, and its figures. */
export interface StoredResult {
  readonly run: Run;
  readonly result: ScenarioResult;
}

export function storeResult(stored: StoredResult, dir = STORED_DIR): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stored.result.scenario.key}.json`);
  // Written aside and renamed: a run stopped half-way leaves the last record whole.
  writeFileSync(`${file}.tmp`, serialized(stored));
  renameSync(`${file}.tmp`, file);
}

const SAMPLES_AT = '\u0000samples';

/**
 * The record as indented JSON, but for its per-second samples, one a line: a two-hour scenario
 * has thousands of them, which one field a line made a megabyte of diff.
 */
export function serialized(stored: StoredResult): string {
  const { samples, ...figures } = stored.result;
  const outline = JSON.stringify({ ...stored, result: { ...figures, samples: SAMPLES_AT } }, null, 1);
  const lines = samples.map((s) => `   ${JSON.stringify(s)}`).join(',\n');
  const list = samples.length === 0 ? '[]' : `[\n${lines}\n  ]`;
  return `${outline.replace(JSON.stringify(SAMPLES_AT), () => list)}\n`;
}

/**
 * The last recorded run of each of `keys` that has one, in that order. A record without its
 * per-second samples (the chart's) reads as having none: its row stands, its line is left out.
 */
export function storedResults(keys: readonly string[], dir = STORED_DIR): StoredResult[] {
  return keys.flatMap((key) => {
    const file = join(dir, `${key}.json`);
    if (!existsSync(file)) return [];
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredResult;
    return [{ run: stored.run, result: { ...stored.result, samples: stored.result.samples ?? [] } }];
  });
}

import { build, buildSync, type BuildOptions, type OutputFile } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DashboardFileName } from '../lambdas/ports/dashboard-assets.ts';

/**
 * Builds the web dashboard (dashboard/src, Preact) into its three files: the page, one script
 * and one style sheet, with esbuild and nothing fetched at run time. The local runtime builds it
 * in memory on the first request for it (local/dashboard-assets.ts); the CDK builds it at synth
 * time into the api function's bundle (lib/constructs/api.ts), where the function reads it
 * (lambdas/adapters/folder-dashboard-assets.ts). `node --import tsx dashboard/build.ts <dir>`
 * writes the files to a folder.
 */

const ROOT = fileURLToPath(new URL('.', import.meta.url));

export type DashboardFiles = Readonly<Record<DashboardFileName, string>>;

const OPTIONS: BuildOptions = {
  entryPoints: { app: join(ROOT, 'src/main.tsx') },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(ROOT, 'tsconfig.json'),
  legalComments: 'none',
  outdir: join(ROOT, 'out'),
  write: false,
  logLevel: 'warning',
};

function collect(outputs: readonly OutputFile[]): DashboardFiles {
  const named = (ext: string) => {
    const file = outputs.find((o) => o.path.endsWith(`app.${ext}`));
    if (!file) throw new Error(`the dashboard build produced no app.${ext}`);
    return file.text;
  };
  return {
    'index.html': readFileSync(join(ROOT, 'index.html'), 'utf8'),
    'app.js': named('js'),
    'app.css': named('css'),
  };
}

export async function buildDashboard(): Promise<DashboardFiles> {
  return collect((await build(OPTIONS)).outputFiles ?? []);
}

export function buildDashboardSync(): DashboardFiles {
  return collect(buildSync(OPTIONS).outputFiles ?? []);
}

/** Writes the files into `dir` (created if needed). */
export function writeDashboard(files: DashboardFiles, dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

let built: string | undefined;
/** A folder holding the built files, built once per process (CDK synthesis bundles the api function many times in a test run). */
export function builtDashboardFolder(): string {
  built ??= writeDashboard(buildDashboardSync(), join(mkdtempSync(join(tmpdir(), 'hookline-dashboard-')), 'dashboard'));
  return built;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node --import tsx dashboard/build.ts <output folder>');
    process.exit(2);
  }
  console.log(`dashboard built into ${writeDashboard(await buildDashboard(), dir)}`);
}

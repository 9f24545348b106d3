import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { ENV_DEFAULTS } from '#config/topology.ts';
import { median } from './stats.ts';
import { LAMBDA_EXTERNAL_MODULES } from '#config/bundling.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface ColdStart {
  readonly fn: string;
  readonly sdk: 'bundled' | 'external';
  readonly bytes: number;
  /** Median ms to import and initialise the bundle (module scope: clients, config) in a fresh Node process. */
  readonly initMs: number;
  /** The largest contributors to the bundle, by package (bytes in the minified output). */
  readonly largest: readonly { readonly name: string; readonly bytes: number }[];
}

/** `node_modules/@scope/name/...` → `@scope/name`; project files → their top folder. */
function packageOf(input: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return m ? m[1]! : input.split('/').slice(0, 2).join('/');
}

/** Every variable a handler may read, with its default or a placeholder, plus what the Lambda runtime sets. */
function lambdaEnv(): Record<string, string> {
  const env: Record<string, string> = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    POWERTOOLS_SERVICE_NAME: 'hookline',
    POWERTOOLS_METRICS_NAMESPACE: 'Hookline',
    PATH: process.env.PATH ?? '',
  };
  for (const [name, value] of Object.entries(ENV_DEFAULTS) as [string, string | undefined][]) {
    env[name] =
      value ??
      (name.endsWith('_URL')
        ? `https://sqs.us-east-1.amazonaws.com/000000000000/${name.toLowerCase()}`
        : `bench-${name.toLowerCase()}`);
  }
  return env;
}

/** Bundles one entry the way the CDK does (ESM, node22, minified), with the AWS SDK inside or left to the runtime. */
async function bundle(
  entry: string,
  sdk: ColdStart['sdk'],
  outDir: string,
): Promise<{ file: string; largest: ColdStart['largest'] }> {
  const outfile = join(outDir, `${basename(entry, '.ts')}-${sdk}.mjs`);
  const result = await build({
    metafile: true,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    mainFields: ['module', 'main'],
    external: sdk === 'external' ? ['@aws-sdk/*'] : [...LAMBDA_EXTERNAL_MODULES],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    tsconfig: join(ROOT, 'tsconfig.json'),
    outfile,
    logLevel: 'error',
  });
  const byPackage = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
  }
  const largest = [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, bytes]) => ({ name, bytes }));
  return { file: outfile, largest };
}

async function initMs(file: string, env: Record<string, string>): Promise<number> {
  const script = `const t = performance.now(); const m = await import(${JSON.stringify(file)}); if (typeof m.handler !== 'function') throw new Error('no handler'); console.log(performance.now() - t);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env,
    cwd: ROOT,
    timeout: 30_000,
  });
  return Number(stdout.trim());
}

/**
 * Each Lambda entry in lambdas/functions, bundled with and without the AWS SDK, its size, and
 * the median time to import and initialise it in a fresh process over `runs` processes. The
 * SDK-external variant is written under node_modules so `@aws-sdk/*` resolves as the Lambda
 * runtime's own copy would.
 */
export async function measureColdStarts(runs: number): Promise<ColdStart[]> {
  const entries = readdirSync(join(ROOT, 'lambdas/functions'))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const outDir = join(ROOT, 'node_modules/.cache/hookline-bench');
  mkdirSync(outDir, { recursive: true });
  const env = lambdaEnv();
  const results: ColdStart[] = [];
  try {
    for (const name of entries) {
      for (const sdk of ['bundled', 'external'] as const) {
        const { file, largest } = await bundle(join(ROOT, 'lambdas/functions', name), sdk, outDir);
        const times: number[] = [];
        for (let i = 0; i < runs; i++) times.push(await initMs(file, env));
        results.push({ fn: basename(name, '.ts'), sdk, bytes: statSync(file).size, initMs: median(times), largest });
      }
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  return results;
}

/** A bare `node -e ''` for reference: process start-up that no bundle can avoid. */
export async function bareNodeStartMs(runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await run(process.execPath, ['-e', ''], { timeout: 30_000 });
    times.push(performance.now() - t);
  }
  return median(times);
}

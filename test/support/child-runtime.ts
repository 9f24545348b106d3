import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { testResourcePrefix } from './resource-prefix.ts';

export interface ChildRuntime {
  readonly url: string;
  readonly process: ChildProcess;
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>;
}

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Starts `local/main.ts` (what `npm start` runs) in its own process, so a test can SIGKILL it.
 * Against a shared endpoint its resource names follow its data folder, the same after a restart.
 */
export async function startChildRuntime(env: Record<string, string>): Promise<ChildRuntime> {
  const prefix = env.HOOKLINE_DATA_DIR ? testResourcePrefix(env.HOOKLINE_DATA_DIR) : '';
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'local/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', ...(prefix ? { HOOKLINE_RESOURCE_PREFIX: prefix } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`runtime did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`runtime exited with ${code} before starting:\n${output}`));
    });
  });
  return { url, process: child, exited };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** `npm start`'s entry point (local/main.ts) as its own process, for tests that read its banner. */
export interface MainProcess {
  /** Everything printed up to the banner's last line (or up to the exit). */
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code when it ended before the banner (a refusal), else null while it runs. */
  readonly code: number | null;
  /** SIGTERM, as Ctrl+C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts local/main.ts with `env` (and nothing else of this process's environment but PATH and
 * HOME, so a developer's HOOKLINE_* or AWS_* variables cannot change what is tested) and
 * resolves once the banner is out or the process has ended.
 */
export function startMain(env: Record<string, string>, timeoutMs = 60_000): Promise<MainProcess> {
  return new Promise((done, fail) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--import', 'tsx', resolve(ROOT, 'local/main.ts')],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOOKLINE_LOG_LEVEL: 'SILENT', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no banner within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    };
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('Press Ctrl+C to stop.')) {
        clearTimeout(timer);
        done({ stdout, stderr, code: null, stop });
      }
    });
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    void exited.then((code) => {
      clearTimeout(timer);
      done({ stdout, stderr, code, stop });
    });
  });
}

/** The variables of the banner's `export NAME=value …` lines (values unquoted as a shell would). */
export function bannerExports(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^\s*export (.*?)(\s+#.*)?$/.exec(line);
    if (!m) continue;
    for (const [, name, quoted, plain] of m[1]!.matchAll(/([A-Z_]+)=(?:'((?:[^']|'\\'')*)'|(\S*))/g))
      out[name!] = quoted !== undefined ? quoted.replace(/'\\''/g, "'") : plain!;
  }
  return out;
}

/** Whether nothing listens on 127.0.0.1:`port`. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = net.createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

/** Where the kernel takes the local ports of outgoing connections from (Linux's default when it cannot be read). */
function ephemeralPorts(): { readonly low: number; readonly high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return { low, high };
  } catch {
    // Not Linux, or no /proc: assume its defaults.
  }
  return { low: 32_768, high: 60_999 };
}

/** The lowest port a block is taken from: above the well-known and most registered services. */
const BLOCK_FLOOR = 10_000;

/**
 * A PORT whose derived ports (PORT+1 to PORT+3) are free as well, below the kernel's ephemeral
 * range. A process restarted on the same ports (the chaos run's runtime after each SIGKILL)
 * must find them free again: a port inside the range can be taken meanwhile as the local end
 * of any outgoing connection (a chaos run failed so, on PORT+3), one below it never is.
 */
export async function freePortBlock(size = 4): Promise<number> {
  const { low } = ephemeralPorts();
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = low - size > BLOCK_FLOOR ? BLOCK_FLOOR + randomInt(low - size - BLOCK_FLOOR) : await systemPort();
    if (base + size - 1 > 65_535) continue;
    const free = await Promise.all(Array.from({ length: size }, (_, i) => isFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no block of free ports found');
}

/** A port the system picks as free (inside the ephemeral range): the fallback where the range leaves no room below it. */
function systemPort(): Promise<number> {
  return new Promise<number>((r) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => r(port));
    });
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface RuntimeEndpoints {
  readonly api: string;
  readonly dynamodb: string;
  readonly sqs: string;
}

const ROOT = resolve(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 30_000;

/** Reads a `/proc/<pid>/status` field in kB (Linux); undefined once the process is gone. */
function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `npm start` (local/main.ts) as a child process that can be SIGKILLed and started again on the
 * same data folder, with the endpoints read from its banner and its peak memory tracked across
 * incarnations.
 */
export class RuntimeProcess {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private sampler?: NodeJS.Timeout;
  private readonly tail: string[] = [];
  /** Highest resident set of any incarnation, in kB. */
  peakRssKb = 0;
  starts = 0;

  constructor(private readonly env: Readonly<Record<string, string>>) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines the runtime printed: what to show when something goes wrong. */
  output(): string {
    return this.tail.join('\n');
  }

  async start(): Promise<RuntimeEndpoints> {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'local/main.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.starts++;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    let banner = '';
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      banner += text;
      this.tail.push(...text.split('\n').filter(Boolean));
      this.tail.splice(0, Math.max(0, this.tail.length - 40));
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.sampler = setInterval(() => this.sample(), 250).unref();
    return new Promise<RuntimeEndpoints>((resolveStart, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`runtime did not start within ${START_TIMEOUT_MS} ms:\n${this.output()}`)),
        START_TIMEOUT_MS,
      );
      const check = () => {
        const api = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
        const dynamodb = /DynamoDB\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
        const sqs = /SQS\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
        if (api && dynamodb && sqs) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          resolveStart({ api, dynamodb, sqs });
        }
      };
      child.stdout!.on('data', check);
      void this.exited!.then(() => {
        clearTimeout(timer);
        reject(new Error(`runtime exited before starting:\n${this.output()}`));
      });
    });
  }

  private sample(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    const kb = Math.max(procStatusKb(pid, 'VmHWM') ?? 0, procStatusKb(pid, 'VmRSS') ?? 0);
    this.peakRssKb = Math.max(this.peakRssKb, kb);
  }

  /** SIGKILL: no shutdown hook runs, in-flight batches die where they are. */
  async kill(): Promise<void> {
    this.sample();
    this.child?.kill('SIGKILL');
    await this.exited;
    clearInterval(this.sampler);
  }

  /** SIGTERM (a clean stop), SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.sample();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    clearInterval(this.sampler);
  }
}

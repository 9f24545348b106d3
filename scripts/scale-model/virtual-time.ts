import { randomBytes } from 'node:crypto';
import { mock } from 'node:test';
import type { Clock } from '#ports/clock.ts';
import type { SimTime } from './sim/time.ts';

// Taken before the timers are mocked: the loop yields to the real event loop to let every
// promise the last tick released run to completion before the next millisecond is dealt.
const realImmediate = setImmediate;
const settle = () => new Promise<void>((resolve) => realImmediate(resolve));

/**
 * The model's clock. It mocks the process's timers and Date (node:test's MockTimers), so the
 * real handlers' own setTimeout and Date.now (the sender's gathered sends, EMF timestamps) run
 * on simulated time too, and it deals time a millisecond at a time, letting every promise
 * settle in between. Randomness is seeded: a scenario run twice decides the same jitter.
 */
export class VirtualTime implements SimTime, Clock {
  private state: number;
  private enabled = false;

  constructor(
    readonly startMs: number,
    seed = 1,
  ) {
    this.state = seed >>> 0 || 1;
  }

  enable(): void {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: this.startMs });
    this.enabled = true;
  }

  disable(): void {
    if (this.enabled) mock.timers.reset();
    this.enabled = false;
  }

  now(): number {
    return Date.now();
  }

  elapsedMs(): number {
    return this.now() - this.startMs;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  }

  /** Mulberry32: small, fast and good enough for jitter and latency draws. */
  random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  randomBytes(size: number): Uint8Array {
    return randomBytes(size);
  }

  /** Runs simulated time forward to `untilMs` (absolute), calling `each` once a simulated second. */
  async runUntil(untilMs: number, each?: (nowMs: number) => void): Promise<void> {
    let nextSecond = Math.floor(this.now() / 1000) * 1000 + 1000;
    while (this.now() < untilMs) {
      await settle();
      mock.timers.tick(1);
      if (each && this.now() >= nextSecond) {
        each(this.now());
        nextSecond += 1000;
      }
    }
    await settle();
  }

  /** Runs until `done` resolves (a setup step), at most `limitMs` of simulated time. */
  async runWhile<T>(done: Promise<T>, limitMs = 3_600_000): Promise<T> {
    let finished = false;
    let value: T | undefined;
    let failure: unknown;
    let failed = false;
    done.then(
      (v) => {
        finished = true;
        value = v;
      },
      (e: unknown) => {
        finished = true;
        failed = true;
        failure = e;
      },
    );
    const deadline = this.now() + limitMs;
    while (!finished && this.now() < deadline) {
      await settle();
      if (!finished) mock.timers.tick(1);
    }
    if (!finished) throw new Error(`a setup step did not finish within ${limitMs} ms of simulated time`);
    if (failed) throw failure;
    return value as T;
  }
}

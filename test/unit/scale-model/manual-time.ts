import type { SimTime } from '../../../scripts/scale-model/sim/time.ts';

/** Simulated time for the simulators' unit tests: sleeps wait until `advance` deals their instant. */
export class ManualTime implements SimTime {
  private at = 0;
  private readonly timers: { at: number; wake: () => void }[] = [];

  now(): number {
    return this.at;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.timers.push({ at: this.at + Math.max(0, ms), wake }));
  }

  async advance(ms: number): Promise<void> {
    const until = this.at + ms;
    for (;;) {
      await new Promise((r) => setImmediate(r));
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > until) break;
      this.timers.shift();
      this.at = next.at;
      next.wake();
    }
    this.at = until;
    await new Promise((r) => setImmediate(r));
  }
}

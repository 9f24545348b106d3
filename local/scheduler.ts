/** Runs a scheduled handler every `intervalMs`, never two runs at once (like a rate() rule with one target). */
export class Schedule {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
  }

  /** Runs now (also used by tests and the demo to avoid waiting for the next tick). */
  tick(): Promise<void> {
    if (!this.running) {
      this.running = this.run()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.running = undefined;
        });
    }
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

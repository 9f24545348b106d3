import type { Clock } from '#ports/clock.ts';

/**
 * Spaces reads out to at most `rowsPerSecond` rows a second, shared by everyone who takes from
 * it: a sweeper run's 16 shards read side by side, and together they must leave the table's read
 * throughput to the senders. Each `take` waits until the rows before it have had their time.
 * Unpaced, a backlog of checks read at whatever the calls in flight allow (some 100,000 rows a
 * second), past an on-demand table's warm 12,000 read units, and the throttles failed the very
 * run that was catching up (docs/aws.md, "What the model found").
 */
export class ReadPace {
  private nextAtMs: number;

  constructor(
    private readonly clock: Pick<Clock, 'now' | 'sleep'>,
    private readonly rowsPerSecond: number,
  ) {
    this.nextAtMs = clock.now();
  }

  async take(rows: number): Promise<void> {
    const nowMs = this.clock.now();
    const atMs = Math.max(nowMs, this.nextAtMs);
    this.nextAtMs = atMs + (rows * 1000) / this.rowsPerSecond;
    if (atMs > nowMs) await this.clock.sleep(atMs - nowMs);
  }
}

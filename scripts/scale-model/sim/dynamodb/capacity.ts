/**
 * Capacity metering and the throughput limits DynamoDB enforces, accounted in 1-second windows
 * of simulated time. Burst capacity (up to 300 s of unused provisioned capacity) is ignored: it
 * applies to provisioned tables, and on-demand tables (Hookline's) have no stored burst beyond
 * their warm throughput, so a model without it errs on the side of throttling early.
 */

export interface DynamoLimits {
  /**
   * Per partition key value. A physical partition serves at most 1,000 WCU/s and 3,000 RCU/s,
   * and adaptive capacity isolates a hot key onto a partition of its own, so one key value is
   * the binding limit:
   * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html
   */
  partitionWcu: number;
  partitionRcu: number;
  /**
   * Per table and per GSI (on-demand). A new on-demand table's warm throughput is 4,000 WCU /
   * 12,000 RCU; it can be raised, up to the per-table quota (default 40,000 each):
   * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html,
   * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
   */
  tableWcu: number;
  tableRcu: number;
  /** Over all tables of the account (the provisioned-mode account quota, 80,000 each: same ServiceQuotas page). */
  accountWcu: number;
  accountRcu: number;
}

export const DEFAULT_LIMITS: DynamoLimits = {
  partitionWcu: 1_000,
  partitionRcu: 3_000,
  tableWcu: 4_000,
  tableRcu: 12_000,
  accountWcu: 80_000,
  accountRcu: 80_000,
};

/** Units used in the current 1 s window, and the highest any window reached. */
export class Meter {
  private window = -1;
  used = 0;
  peak = 0;
  total = 0;

  private roll(second: number): void {
    if (second !== this.window) {
      this.window = second;
      this.used = 0;
    }
  }
  /** Whether `units` more fit under `limit` in the window of `nowMs`. */
  fits(nowMs: number, units: number, limit: number): boolean {
    this.roll(Math.floor(nowMs / 1000));
    return this.used + units <= limit;
  }
  consume(nowMs: number, units: number): void {
    this.roll(Math.floor(nowMs / 1000));
    this.used += units;
    this.total += units;
    if (this.used > this.peak) this.peak = this.used;
  }
  stale(nowMs: number): boolean {
    return this.window < Math.floor(nowMs / 1000);
  }
}

/** Meters per partition key value, pruned of stale windows so a long run does not keep every key ever written. */
export class KeyMeters {
  private readonly meters = new Map<string, Meter>();
  private sweepAt = 100_000;
  get(key: string, nowMs: number): Meter {
    let m = this.meters.get(key);
    if (!m) {
      if (this.meters.size >= this.sweepAt) {
        for (const [k, v] of this.meters) if (v.stale(nowMs)) this.meters.delete(k);
        this.sweepAt = Math.max(100_000, this.meters.size * 2);
      }
      m = new Meter();
      this.meters.set(key, m);
    }
    return m;
  }
}

/** Write units: 1 per KB (rounded up), at least 1. */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
/** Read units: 1 per 4 KB (rounded up), at least 1; half for an eventually consistent read. */
export const readUnits = (bytes: number, consistent: boolean): number =>
  Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

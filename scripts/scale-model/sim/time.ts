/**
 * Simulated time, shared by every simulated AWS service of the scale model: the caller drives a
 * virtual clock, so a simulated second of DynamoDB capacity or an SDK retry backoff costs no wall
 * time, and runs are reproducible. Nothing under sim/ may read Date.now() or call setTimeout.
 */
export interface SimTime {
  /** Simulated epoch milliseconds. */
  now(): number;
  /** Resolves once `ms` of simulated time have passed. */
  sleep(ms: number): Promise<void>;
}

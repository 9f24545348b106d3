/** Time and randomness, injected so the domain and services are deterministic under test. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
  randomBytes(size: number): Uint8Array;
  /** Waits `ms` (none when not above 0), never less as `now()` counts it (a few seconds at most: the hold for a rate-limit turn's sub-window, a pause before a refused write is tried again). */
  sleep(ms: number): Promise<void>;
}

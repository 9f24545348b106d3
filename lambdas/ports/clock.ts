/** Time and randomness, injected so the domain and services are deterministic under test. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Uniform in [0, 1). */
  random(): number;
  randomBytes(size: number): Uint8Array;
  /** Waits `ms` (a few seconds at most: the rate gate's hold for a sub-window, a pause before a refused write is tried again). */
  sleep(ms: number): Promise<void>;
}

/** The retry policy's figures, as the API answers them. */
export interface RetryFigures {
  readonly initialDelaySeconds: number;
  readonly multiplier: number;
  readonly maxDelaySeconds: number;
  readonly deadlineSeconds: number;
  readonly maxAttempts?: number | undefined;
}

/** A length of time in the largest unit that says it whole enough: 10 s, 5 min, 1 h, 72 hours, 90 days. */
export function spanWords(seconds: number): string {
  if (seconds < 120) return `${trim(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  if (seconds === 3600) return '1 h';
  if (seconds < 4 * 86_400) return `${trim(seconds / 3600)} hours`;
  return `${trim(seconds / 86_400)} days`;
}

const trim = (n: number) => String(Math.round(n * 10) / 10);

/**
 * How a policy retries, in the words "How delivery works" uses: "for 72 hours, waiting longer each
 * time (10 s, doubling up to 1 h)", with the attempt cap when there is one.
 */
export function retryWords(p: RetryFigures): string {
  const cap = p.maxAttempts !== undefined ? `, at most ${p.maxAttempts} attempts` : '';
  if (p.multiplier === 1) return `for ${spanWords(p.deadlineSeconds)}, every ${spanWords(p.initialDelaySeconds)}${cap}`;
  const growth = p.multiplier === 2 ? 'doubling' : `×${p.multiplier} each time`;
  return `for ${spanWords(p.deadlineSeconds)}, waiting longer each time (${spanWords(p.initialDelaySeconds)}, ${growth} up to ${spanWords(p.maxDelaySeconds)}${cap})`;
}

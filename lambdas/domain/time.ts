/*
 * A busy sender formats the same few milliseconds many times over (a Date and toISOString, about
 * 0.5 µs each): the last eight are kept, by their low three bits, so an attempt's start, formatted
 * again after its POST, is usually still there. A pure function's memo, nothing more.
 */
const keptMs: number[] = new Array<number>(8).fill(Number.NaN);
const keptText: string[] = new Array<string>(8).fill('');

/** ISO 8601 in UTC with milliseconds: the one timestamp format stored and shown. */
export function iso(ms: number): string {
  const slot = ms & 7;
  if (keptMs[slot] !== ms) {
    keptText[slot] = new Date(ms).toISOString();
    keptMs[slot] = ms;
  }
  return keptText[slot]!;
}

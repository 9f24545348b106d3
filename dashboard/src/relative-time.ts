/**
 * How far `iso` is from `nowMs`, in the largest whole unit it has passed: "just now", "45 s
 * ago", "3 min ago", "2 h ago", "5 days ago", "3 months ago", "2 years ago", or "in 3 min" for
 * a time to come. The one formatting of times in lists (ui.tsx `RelativeTime`, which shows the
 * absolute time on hover). Undefined for a string that is no time.
 */
export function relativeTime(iso: string, nowMs: number): string | undefined {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return undefined;
  const ms = nowMs - at;
  const away = Math.abs(ms);
  // A few seconds either way is clock skew between the API and the viewer as often as it is time.
  if (away < 10 * SECOND) return 'just now';
  const [count, unit] = largestUnit(away);
  const said = `${count} ${unit}${PLURAL.has(unit) && count !== 1 ? 's' : ''}`;
  return ms > 0 ? `${said} ago` : `in ${said}`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A month as a twelfth of the mean Gregorian year: "3 months ago" is a rough span, not a calendar date. */
const YEAR = 365.2425 * DAY;
const MONTH = YEAR / 12;

/** Short units for the spans read at a glance, words for the longer ones (which take a plural). */
const UNITS: readonly (readonly [number, string])[] = [
  [YEAR, 'year'],
  [MONTH, 'month'],
  [DAY, 'day'],
  [HOUR, 'h'],
  [MINUTE, 'min'],
  [SECOND, 's'],
];
const PLURAL = new Set(['year', 'month', 'day']);

function largestUnit(ms: number): readonly [number, string] {
  for (const [size, unit] of UNITS) if (ms >= size) return [Math.floor(ms / size), unit];
  return [0, 's'];
}

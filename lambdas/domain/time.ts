/** ISO 8601 in UTC with milliseconds: the one timestamp format stored and shown. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A count as the report prints it: rounded, with thousands separators. */
export const n = (v: number) => Math.round(v).toLocaleString('en-US');
/** A rate or a time: one decimal below 100, whole above. */
export const s1 = (v: number) => (v >= 100 ? n(v) : v.toFixed(1));

import { emptyUsage, type CallUsage, type Usage } from '../../../scripts/bench/sdk-meter.ts';

/** One metered call's figures, zero unless given. */
export const call = (c: Partial<CallUsage>): CallUsage => ({
  count: 0,
  billedRequests: 0,
  writeUnits: 0,
  readUnits: 0,
  indexWriteUnits: 0,
  ...c,
});

/** A meter's reading made of these calls and nothing else. */
export const usage = (calls: Record<string, CallUsage>, s3PutBytes = 0): Usage => ({
  ...emptyUsage(),
  calls,
  s3PutBytes,
});

import { randomBytes } from 'node:crypto';
import type { Clock } from '#ports/clock.ts';

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  randomBytes: (size) => randomBytes(size),
};

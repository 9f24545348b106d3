import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { Clock } from '#ports/clock.ts';

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  randomBytes: (size) => randomBytes(size),
  sleep: async (ms) => {
    await wait(Math.max(0, ms));
  },
};

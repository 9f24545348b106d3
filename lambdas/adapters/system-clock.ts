import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { Clock } from '#ports/clock.ts';

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  randomBytes: (size) => randomBytes(size),
  sleep: async (ms) => {
    // A timer may fire a millisecond or two before Date.now() has moved on by `ms` (it counts
    // from the event loop's cached time): a hold for a rate-limit sub-window would then count
    // in the one before it, which is full. So it waits out what is left; nothing to wait, no timer.
    const untilMs = Date.now() + ms;
    while (Date.now() < untilMs) await wait(untilMs - Date.now());
  },
};

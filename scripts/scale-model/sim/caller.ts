import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The function a simulated call is made for: each invocation runs inside it, so the simulated
 * services can say which function used the capacity they meter (calls outside any invocation,
 * the scenario's own setup and reads, have none).
 */
export const currentCaller = new AsyncLocalStorage<string>();

/** The caller of the call under way, or `setup` outside every function. */
export const callerName = (): string => currentCaller.getStore() ?? 'setup';

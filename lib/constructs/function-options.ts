import type { HooklineFunctionProps } from './hookline-function.ts';

/** Settings every Hookline function shares; the L3 construct passes one object to all of them. */
export type SharedFunctionOptions = Pick<HooklineFunctionProps, 'logRetention' | 'logRemovalPolicy' | 'tracing' | 'projectRoot'>;

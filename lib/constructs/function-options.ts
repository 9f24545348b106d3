import type { ReservedConcurrency } from './concurrency.ts';
import type { EnvironmentValues } from './environment.ts';
import type { HooklineFunctionProps } from './hookline-function.ts';
import type { HooklineStorage } from './storage.ts';

/** Settings every Hookline function shares; the L3 construct passes one object to all of them. */
export type SharedFunctionOptions = Pick<
  HooklineFunctionProps,
  'logRetention' | 'logRemovalPolicy' | 'tracing' | 'logLevel' | 'platformLogLevel' | 'projectRoot'
>;

/** What WebhookDelivery hands every construct that owns a function (DeliverySender, HooklineApi, …). */
export interface FunctionConstructProps {
  readonly storage: HooklineStorage;
  readonly environmentValues: EnvironmentValues;
  readonly functionOptions?: SharedFunctionOptions;
  /** Reserved concurrency by function; each construct's functions take their own entry. @default none (RESERVED_CONCURRENCY_DEFAULTS) */
  readonly reservedConcurrency?: ReservedConcurrency;
}

import type { FunctionKey } from '#config/topology.ts';
import type { Invoke } from '#local/lambda-context.ts';

export interface FunctionUsage {
  invocations: number;
  totalMs: number;
  /** SQS records handed to the function (batch sizes add up to this). */
  records: number;
}

/**
 * Counts and times every handler invocation through the local runtime's `wrapHandler` hook:
 * Lambda requests and GB-seconds come from these figures.
 */
export class InvocationMeter {
  usage: Partial<Record<FunctionKey, FunctionUsage>> = {};

  readonly wrap =
    <E, R>(fn: FunctionKey, handler: Invoke<E, R>): Invoke<E, R> =>
    async (event, context) => {
      const started = performance.now();
      try {
        return await handler(event, context);
      } finally {
        const u = (this.usage[fn] ??= { invocations: 0, totalMs: 0, records: 0 });
        u.invocations++;
        u.totalMs += performance.now() - started;
        u.records += (event as { Records?: unknown[] }).Records?.length ?? 0;
      }
    };

  reset(): Partial<Record<FunctionKey, FunctionUsage>> {
    const previous = this.usage;
    this.usage = {};
    return previous;
  }
}

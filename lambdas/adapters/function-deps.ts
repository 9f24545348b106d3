import { PROVIDED_BY, type FunctionDeps, type ProvidedDep } from '#app/deps.ts';
import { parsePositiveInt, readFunctionEnv, type Env } from '#config/env.ts';
import type { FunctionKey } from '#config/topology.ts';
import type { BuildOptions, Factories, FactoriesFor, Shared, Vars } from './deps/factory.ts';
import { DnsHostResolver } from './dns-host-resolver.ts';
import { documentClient } from './dynamodb.ts';
import { systemClock } from './system-clock.ts';

export type { BuildOptions, Clients } from './deps/factory.ts';

/** The dependencies function `fn`'s declared environment provides (what FunctionDeps<fn> names). */
export function providedTo(fn: FunctionKey, env: Env = {}): readonly ProvidedDep[] {
  const declared = new Set<string>(Object.keys(readDeclared(fn, env)));
  return (Object.keys(PROVIDED_BY) as ProvidedDep[]).filter((dep) =>
    PROVIDED_BY[dep].every((name) => declared.has(name)),
  );
}

function readDeclared(fn: FunctionKey, env: Env): Vars {
  return readFunctionEnv(fn, env) as unknown as Vars;
}

/**
 * Builds exactly what function `fn` can use, from its declared environment only
 * (topology.ts), with one DynamoDB client. Both wiring points call this: the Lambda entries
 * with default clients and the factory groups they need (a missing group does not type-check),
 * the local runtime with clients pointed at its emulators and ALL_FACTORIES
 * (deps/all-factories.ts). A dependency the
 * environment does not provide is absent, in the type as at run time.
 */
export function buildDeps<F extends FunctionKey>(
  fn: F,
  env: Env,
  options: BuildOptions,
  factories: FactoriesFor<F>,
): FunctionDeps<F> {
  const vars = readDeclared(fn, env);
  const shared: Shared = {
    clock: options.clock ?? systemClock,
    db: documentClient(options.clients?.dynamodb),
    options,
  };
  const make = factories as Partial<Factories>;
  const provided = Object.fromEntries(
    providedTo(fn, env).map((dep) => {
      const factory = make[dep];
      // Only reachable by a cast: the type asks the caller for every factory its function needs.
      if (!factory) throw new Error(`no factory for ${dep} was given to ${fn}`);
      return [dep, factory(vars, shared)];
    }),
  );
  return {
    ...provided,
    clock: shared.clock,
    metrics: options.metrics,
    resolver: new DnsHostResolver(),
  } as unknown as FunctionDeps<F>;
}

export function sweepGraceSeconds(env: Env): number {
  return parsePositiveInt('HOOKLINE_SWEEP_GRACE_SECONDS', readFunctionEnv('sweeper', env).HOOKLINE_SWEEP_GRACE_SECONDS);
}

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Async<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on reload); a slower earlier run never overwrites a later one. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const mine = ++run.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === run.current && setState({ data, loading: false }),
      (error: unknown) => mine === run.current && setState({ error, loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

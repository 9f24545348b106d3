import { Session } from 'node:inspector/promises';

export interface ProfileShare {
  readonly name: string;
  /** Share of all sampled CPU time (0..1). */
  readonly share: number;
}

/** A script URL → who owns that code: a package, a project folder, Node itself, or idle. */
function ownerOf(url: string, functionName: string, byFile: boolean): string {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(root)' || functionName === '(program)') return functionName;
  if (!url) return 'node internals / native';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return 'node internals / native';
  const local = /\/(lambdas|local|scripts|test)\/(.+)$/.exec(url);
  if (!local) return url;
  return byFile ? `${local[1]}/${local[2]}` : `${local[1]}/${local[2]!.split('/')[0]}`;
}

/**
 * Runs `work` under the V8 sampling profiler (in this process, where the local runtime, its
 * emulators and the load generator all run) and returns self time by owner, largest first;
 * time in Node's own code is charged to the package or project folder (or file, with `byFile`) that called it.
 */
export async function profileShares(
  work: () => Promise<unknown>,
  options: { byFile?: boolean } = {},
): Promise<ProfileShare[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
    await work();
    const { profile } = await session.post('Profiler.stop');
    // Node's own frames (http, crypto, streams, native) are charged to the nearest caller that is not Node's.
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const owner = new Map<number, string>();
    const resolveOwner = (id: number): string => {
      const known = owner.get(id);
      if (known) return known;
      const n = byId.get(id)!;
      let name = ownerOf(n.callFrame.url, n.callFrame.functionName, options.byFile ?? false);
      if (name === 'node internals / native' && parent.has(id)) {
        const up = resolveOwner(parent.get(id)!);
        if (up !== '(root)' && up !== 'node internals / native') name = up;
      }
      owner.set(id, name);
      return name;
    };
    for (const n of profile.nodes) resolveOwner(n.id);
    const counts = new Map<string, number>();
    for (const id of profile.samples ?? []) counts.set(owner.get(id)!, (counts.get(owner.get(id)!) ?? 0) + 1);
    const total = profile.samples?.length ?? 1;
    return [...counts].map(([name, n]) => ({ name, share: n / total })).sort((a, b) => b.share - a.share);
  } finally {
    session.disconnect();
  }
}

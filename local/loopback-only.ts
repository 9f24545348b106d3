import net from 'node:net';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);
const LOOPBACK = '127.0.0.1';

/** `listen()` arguments with a wildcard or missing host replaced by loopback; a Unix socket path is left as it is. */
function loopbackArgs(args: unknown[]): unknown[] {
  const [first, second, ...rest] = args;
  if (first !== null && typeof first === 'object') {
    const options = first as net.ListenOptions;
    if (options.path !== undefined || !WILDCARDS.has(options.host ?? '')) return args;
    return [{ ...options, host: LOOPBACK }, second, ...rest].slice(0, args.length);
  }
  if (typeof first !== 'number' && !/^\d+$/.test(String(first))) return args; // a pipe or handle
  if (typeof second === 'string') return WILDCARDS.has(second) ? [first, LOOPBACK, ...rest] : args;
  return [first, LOOPBACK, ...args.slice(1)];
}

let depth = 0;
let original: net.Server['listen'] | undefined;

/**
 * Runs `start` with every server that starts listening in the meantime bound to 127.0.0.1
 * instead of every interface. For libraries that ignore where they are told to listen: fauxqs
 * (2.4) always binds 0.0.0.0 (its `host` option only names the host in queue URLs), which
 * would expose the local SQS and S3 data to the network. Binding right from the start leaves
 * no window in which it is reachable from outside.
 */
export async function onLoopbackOnly<T>(start: () => Promise<T>): Promise<T> {
  if (depth++ === 0) {
    original = net.Server.prototype.listen;
    const listen = original;
    net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
      return (listen as (...a: unknown[]) => net.Server).apply(this, loopbackArgs(args));
    } as net.Server['listen'];
  }
  try {
    return await start();
  } finally {
    if (--depth === 0) net.Server.prototype.listen = original!;
  }
}

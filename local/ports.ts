/**
 * The local runtime's ports. Every listener has a stable port derived from PORT, so the queue
 * URL and endpoints a producer script was given still hold after a restart:
 *
 *   API PORT (default 3000) · DynamoDB PORT+1 · SQS and S3 (one fauxqs) PORT+2 · Invoke API PORT+3
 *
 * each overridable by its own variable. PORT=0 (tests) picks a free port for every listener
 * that has no variable of its own; a variable set to 0 picks one for that listener.
 */
export type Listener = 'api' | 'dynamodb' | 'sqs' | 'lambda';
export const LISTENERS: readonly Listener[] = ['api', 'dynamodb', 'sqs', 'lambda'];

/** The variable that sets each listener's port. */
export const PORT_VARIABLES: Readonly<Record<Listener, string>> = {
  api: 'PORT',
  dynamodb: 'HOOKLINE_DYNAMODB_PORT',
  sqs: 'HOOKLINE_SQS_PORT',
  lambda: 'HOOKLINE_LAMBDA_PORT',
};

/** How far above PORT each listener sits when its variable is not set. */
export const PORT_OFFSETS: Readonly<Record<Listener, number>> = { api: 0, dynamodb: 1, sqs: 2, lambda: 3 };

const LABELS: Readonly<Record<Listener, string>> = {
  api: 'the API',
  dynamodb: 'the DynamoDB emulator (dynalite)',
  sqs: 'the SQS and S3 emulator (fauxqs)',
  lambda: 'the local Lambda Invoke API',
};

export const DEFAULT_API_PORT = 3000;
const MAX_PORT = 65_535;

export type LocalPorts = Readonly<Record<Listener, number>>;

/** A port setting that cannot work; the message names the variable to change. */
export class PortError extends Error {
  override name = 'PortError';
}

function parsePort(value: string, variable: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > MAX_PORT)
    throw new PortError(
      `${variable}=${value} is not a port: a whole number from 0 to ${MAX_PORT} (0 picks a free one)`,
    );
  return n;
}

/**
 * Each listener's port: `overrides` first, else `api` + its offset (0 stays 0). Two listeners
 * given the same fixed port are refused up front, naming both variables.
 */
export function resolvePorts(
  api: number,
  overrides: Partial<Record<Exclude<Listener, 'api'>, number>> = {},
): LocalPorts {
  const ports = { api } as Record<Listener, number>;
  for (const listener of LISTENERS.slice(1) as Exclude<Listener, 'api'>[]) {
    const given = overrides[listener];
    if (given !== undefined) {
      ports[listener] = given;
      continue;
    }
    const derived = api === 0 ? 0 : api + PORT_OFFSETS[listener];
    if (derived > MAX_PORT) {
      throw new PortError(
        `PORT=${api} puts ${LABELS[listener]} on ${derived} (PORT+${PORT_OFFSETS[listener]}), above ${MAX_PORT}: choose a lower PORT or set ${PORT_VARIABLES[listener]}`,
      );
    }
    ports[listener] = derived;
  }
  const taken = new Map<number, Listener>();
  for (const listener of LISTENERS) {
    const port = ports[listener];
    if (port === 0) continue;
    const other = taken.get(port);
    if (other)
      throw new PortError(
        `${LABELS[other]} (${PORT_VARIABLES[other]}) and ${LABELS[listener]} (${PORT_VARIABLES[listener]}) would both listen on ${port}: give one another port`,
      );
    taken.set(port, listener);
  }
  return ports;
}

/** The ports `npm start` uses: PORT (default 3000) and HOOKLINE_DYNAMODB_PORT, _SQS_PORT, _LAMBDA_PORT. */
export function portsFromEnvironment(env: NodeJS.ProcessEnv): LocalPorts {
  const read = (listener: Listener) => {
    const value = env[PORT_VARIABLES[listener]];
    return value === undefined || value === '' ? undefined : parsePort(value, PORT_VARIABLES[listener]);
  };
  const overrides: Partial<Record<Exclude<Listener, 'api'>, number>> = {};
  for (const listener of ['dynamodb', 'sqs', 'lambda'] as const) {
    const port = read(listener);
    if (port !== undefined) overrides[listener] = port;
  }
  return resolvePorts(read('api') ?? DEFAULT_API_PORT, overrides);
}

/**
 * Runs `start` (which listens on `port`); a port that is taken or not allowed becomes a
 * PortError saying which listener and which variable to set, instead of a bare EADDRINUSE.
 */
export async function listening<T>(listener: Listener, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    const why =
      code === 'EADDRINUSE'
        ? 'is in use (another Hookline runtime, or another program)'
        : 'may not be used by this user';
    const fix =
      listener === 'api'
        ? `set PORT to a free port (the other listeners follow at PORT+1 to PORT+3; 0 picks free ones)`
        : `stop what uses it, set ${PORT_VARIABLES[listener]} to a free port (default PORT+${PORT_OFFSETS[listener]}; 0 picks one), or choose another PORT`;
    throw new PortError(`${LABELS[listener]} cannot listen on 127.0.0.1:${port}: the port ${why}; ${fix}`, {
      cause: error,
    });
  }
}

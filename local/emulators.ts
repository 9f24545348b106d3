import { chmodSync, mkdirSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import { onLoopbackOnly } from './loopback-only.ts';
import { listening } from './ports.ts';

export type Service = 'dynamodb' | 'sqs' | 's3';
export const SERVICES: readonly Service[] = ['dynamodb', 'sqs', 's3'];

/** The SDK-standard variable that points a service's clients at an endpoint of the user's choice. */
export const ENDPOINT_VARIABLES: Readonly<Record<Service, string>> = {
  dynamodb: 'AWS_ENDPOINT_URL_DYNAMODB',
  sqs: 'AWS_ENDPOINT_URL_SQS',
  s3: 'AWS_ENDPOINT_URL_S3',
};

/** The endpoints the environment gives (DynamoDB Local, LocalStack, a real account); the others are emulated here. */
export function externalEndpoints(env: NodeJS.ProcessEnv = process.env): Partial<Record<Service, string>> {
  const out: Partial<Record<Service, string>> = {};
  for (const s of SERVICES) {
    const value = env[ENDPOINT_VARIABLES[s]]?.trim();
    if (!value) continue;
    if (!/^https?:\/\/[^/]/.test(value)) throw new Error(`${ENDPOINT_VARIABLES[s]}=${value} is not an http(s) URL`);
    out[s] = value.replace(/\/+$/, '');
  }
  return out;
}

/** The emulators' data holds every table row and message body: the owner's only (0700), also a folder from before this rule. */
function ownerOnlyFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

export interface Emulators {
  /** The endpoint of each service emulated here; a service given from outside has none. */
  readonly endpoints: Partial<Record<Service, string>>;
  stop(): Promise<void>;
}

/** Where the emulators listen (local/ports.ts); 0 picks a free port. fauxqs serves SQS and S3 on one. */
export interface EmulatorPorts {
  readonly dynamodb: number;
  readonly sqs: number;
}

/**
 * A queue URL fauxqs gave, made usable as it is. fauxqs names queues
 * `http://sqs.<region>.<host>:<port>/<account>/<name>`, a host no resolver knows, and keeps the
 * URL a queue was created with (SQLite) across restarts, port and all. fauxqs finds a queue by
 * the name in the path whatever the host, so `<endpoint>/<account>/<name>` reaches the same
 * queue, and an SDK client given no endpoint sends to that URL's host and port.
 */
export function reachableQueueUrl(queueUrl: string, endpoint: string): string {
  // Not `new URL()`: a host ending in 127.0.0.1 after other labels is not even a valid URL to it.
  return `${endpoint.replace(/\/+$/, '')}${queueUrl.replace(/^[a-z]+:\/\/[^/]*/i, '')}`;
}

/**
 * DynamoDB (dynalite on LevelDB) and SQS + S3 (fauxqs on SQLite, one endpoint for both),
 * persisting under `dataDir`, so a restart — even after SIGKILL — finds every table row and
 * queued message. Only the services in `services` are started; fauxqs when SQS or S3 is.
 */
export async function startEmulators(
  dataDir: string,
  services: ReadonlySet<Service>,
  ports: EmulatorPorts = { dynamodb: 0, sqs: 0 },
): Promise<Emulators> {
  const endpoints: Partial<Record<Service, string>> = {};
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    if (services.has('dynamodb')) {
      ownerOnlyFolder(join(dataDir, 'dynamodb'));
      // dynalite opens its LevelDB folder when created, and a server that never listened cannot
      // close it: a taken port is found first, so it leaves nothing writing to the data folder.
      if (ports.dynamodb !== 0) await listening('dynamodb', ports.dynamodb, () => portFree(ports.dynamodb));
      const dynamo = dynalite({
        path: join(dataDir, 'dynamodb'),
        createTableMs: 0,
        deleteTableMs: 0,
        updateTableMs: 0,
      });
      await listening(
        'dynamodb',
        ports.dynamodb,
        () =>
          new Promise<void>((resolve, reject) => {
            dynamo.once('error', reject);
            dynamo.listen(ports.dynamodb, '127.0.0.1', () => resolve());
          }),
      );
      stops.push(() => new Promise<void>((resolve) => dynamo.close(() => resolve())));
      endpoints.dynamodb = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
    }
    if (services.has('sqs') || services.has('s3')) {
      ownerOnlyFolder(join(dataDir, 'sqs'));
      // fauxqs binds 0.0.0.0 whatever `host` says (that only names queue URLs): keep it on loopback.
      const fauxqs = await listening('sqs', ports.sqs, () =>
        onLoopbackOnly(() =>
          startFauxqs({ port: ports.sqs, host: '127.0.0.1', logger: false, dataDir: join(dataDir, 'sqs') }),
        ),
      );
      stops.push(() => fauxqs.stop());
      if (services.has('sqs')) endpoints.sqs = fauxqs.address;
      if (services.has('s3')) endpoints.s3 = fauxqs.address;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints, stop };
}

/** Resolves once a listener could take `port` on loopback (and has let it go); rejects as listen does. */
function portFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

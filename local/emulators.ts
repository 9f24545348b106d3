import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';

export interface Emulators {
  readonly dynamodbEndpoint: string;
  readonly awsEndpoint: string;
  stop(): Promise<void>;
}

/**
 * DynamoDB (dynalite on LevelDB) and SQS + S3 (fauxqs on SQLite), both persisting under
 * `dataDir`, so a restart — even after SIGKILL — finds every table row and queued message.
 */
export async function startEmulators(dataDir: string): Promise<Emulators> {
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  mkdirSync(join(dataDir, 'sqs'), { recursive: true });
  const dynamo = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    dynamo.once('error', reject);
    dynamo.listen(0, '127.0.0.1', () => resolve());
  });
  const fauxqs = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false, dataDir: join(dataDir, 'sqs') });
  return {
    dynamodbEndpoint: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
    awsEndpoint: fauxqs.address,
    async stop() {
      await fauxqs.stop();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}

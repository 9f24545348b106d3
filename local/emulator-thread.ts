import { Worker } from 'node:worker_threads';
import type { EmulatorPorts, Emulators, Service } from './emulators.ts';
import { PortError } from './ports.ts';

/**
 * startEmulators on a worker thread: the same emulators, data folder and ports, with their CPU
 * on the second core. A start-up failure comes back as the error it was (a taken port stays a
 * PortError the banner can explain).
 */
export function startEmulatorThread(
  dataDir: string,
  services: ReadonlySet<Service>,
  ports: EmulatorPorts,
): Promise<Emulators> {
  const worker = new Worker(new URL('./emulator-worker.ts', import.meta.url), {
    workerData: { dataDir, services: [...services], ports },
  });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once(
      'message',
      (message: { endpoints?: Emulators['endpoints']; error?: { name: string; message: string } }) => {
        if (message.error) {
          worker.removeAllListeners('exit');
          const error =
            message.error.name === 'PortError'
              ? new PortError(message.error.message)
              : Object.assign(new Error(message.error.message), { name: message.error.name });
          // Rejected once the thread is gone: an emulator half started may still be writing to the
          // data folder, and a caller that removes the folder on failure would race it.
          void worker.terminate().then(
            () => reject(error),
            () => reject(error),
          );
          return;
        }
        worker.off('error', reject);
        let stopping = false;
        // Emulators that die under a running runtime would leave every handler failing: fail loudly, as in one thread.
        worker.on('error', (error) =>
          process.nextTick(() => {
            throw error;
          }),
        );
        worker.once('exit', (code) => {
          if (!stopping)
            process.nextTick(() => {
              throw new Error(`the emulator thread stopped on its own (exit code ${code})`);
            });
        });
        // Once: a second stop (a test's cleanup after the test stopped them) gets the first one's promise.
        let stopped: Promise<void> | undefined;
        const stop = () =>
          (stopped ??= new Promise<void>((done) => {
            stopping = true;
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('stop');
          }));
        resolve({ endpoints: message.endpoints!, stop });
      },
    );
  });
}

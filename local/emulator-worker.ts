import { parentPort, workerData } from 'node:worker_threads';
import { startEmulators, type EmulatorPorts, type Service } from './emulators.ts';

/**
 * The emulators on a thread of their own (local/emulator-thread.ts starts it): dynalite and
 * fauxqs parse, store and answer every call the handlers make, and on the main thread that
 * work queued behind the handlers' own. Messages: the endpoints (or the error) once listening;
 * `stop` closes them and ends the thread.
 */
const { dataDir, services, ports } = workerData as { dataDir: string; services: Service[]; ports: EmulatorPorts };
try {
  const emulators = await startEmulators(dataDir, new Set(services), ports);
  parentPort!.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void emulators.stop().then(() => parentPort!.postMessage({ stopped: true }));
  });
  parentPort!.postMessage({ endpoints: emulators.endpoints });
} catch (error) {
  parentPort!.postMessage({ error: { name: (error as Error).name, message: (error as Error).message } });
}

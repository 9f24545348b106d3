import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts `server` on 127.0.0.1, never another interface (port 0 picks a free one), and gives
 * its URL and a close that drops idle keep-alive sockets. The local servers run handlers with
 * the emulators' data behind them: nothing on the network may reach them.
 */
export async function listen(server: Server, port: number): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The request body as text, or undefined as soon as it is known to exceed `maxBytes` (a
 * Content-Length over the cap, or the bytes read so far): the rest is not read. The caller
 * answers with `closing` so the connection, and whatever the client still sends, is dropped.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Headers for an answer given before the request body was read: the server closes the connection after it. */
export const CLOSING = { connection: 'close' } as const;

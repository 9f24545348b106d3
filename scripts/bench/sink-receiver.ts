import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkAnswer {
  readonly status: number;
}

/**
 * The cheapest possible webhook endpoint for benchmarks: reads the body, answers at once, and
 * remembers when each webhook-id was first seen and how often. `answer` decides the status.
 */
export class SinkReceiver {
  readonly firstSeen = new Map<string, number>();
  readonly seen = new Map<string, number[]>();
  requests = 0;
  private server?: http.Server;
  url = '';

  constructor(private readonly answer: (webhookId: string, attempt: number) => SinkAnswer = () => ({ status: 200 })) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        const at = performance.timeOrigin + performance.now();
        const id = String(req.headers['webhook-id'] ?? '');
        this.requests++;
        if (!this.firstSeen.has(id)) this.firstSeen.set(id, at);
        const times = this.seen.get(id) ?? [];
        times.push(at);
        this.seen.set(id, times);
        res.writeHead(this.answer(id, times.length).status, { 'content-length': '0' }).end();
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  reset(): void {
    this.firstSeen.clear();
    this.seen.clear();
    this.requests = 0;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

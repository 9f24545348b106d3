import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Answer } from './duplicates.ts';
import { pickWeighted } from './random.ts';

/** What the receiver does with one request. */
export type Behaviour =
  | 'ok'
  | 'error500'
  | 'unavailable503'
  | 'timeout'
  | 'reset'
  | 'slow'
  | 'huge'
  | 'redirect'
  | 'rejected422';

/** Default mix: a little under half of all requests fail in one way or another. */
export const DEFAULT_BEHAVIOURS: Readonly<Record<Behaviour, number>> = {
  ok: 55,
  error500: 10,
  unavailable503: 6,
  timeout: 5,
  reset: 6,
  slow: 7,
  huge: 5,
  redirect: 5,
  rejected422: 1,
};

const MB = 1024 * 1024;
const HUGE_BYTES = 10 * MB;
const CHUNK = Buffer.alloc(MB, 'z');

export interface ChaosReceiverOptions {
  readonly random: () => number;
  /** The sender's attempt timeout: a `timeout` answer holds the request past it. */
  readonly senderTimeoutMs: number;
  readonly behaviours?: Readonly<Record<Behaviour, number>>;
}

/**
 * A webhook endpoint that misbehaves at random, verifies every signature with
 * `standardwebhooks`, and remembers which (path, webhook-id) it answered with a 2xx, so the
 * harness can count duplicates and check that every "delivered" was really received.
 */
export class ChaosReceiver {
  readonly byBehaviour: Record<string, number> = {};
  /** 2xx answers per `${path} ${webhook-id}`, each with when its request arrived and when it was answered. */
  readonly answers = new Map<string, Answer[]>();
  /** Requests per `${path} ${webhook-id}`, whatever the answer. */
  readonly received = new Map<string, number>();
  requests = 0;
  unverified = 0;
  redirectsFollowed = 0;
  private readonly secrets = new Map<string, string>();
  private readonly held = new Set<NodeJS.Timeout>();
  private server?: http.Server;
  url = '';

  constructor(private readonly options: ChaosReceiverOptions) {}

  expectSecret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = req.url ?? '/';
    if (path.endsWith('/elsewhere')) {
      this.redirectsFollowed++;
      res.writeHead(200).end();
      return;
    }
    this.requests++;
    const id = String(req.headers['webhook-id'] ?? '');
    const key = `${path} ${id}`;
    this.received.set(key, (this.received.get(key) ?? 0) + 1);
    if (!this.verify(path, body, req)) this.unverified++;
    const behaviour = pickWeighted(this.options.behaviours ?? DEFAULT_BEHAVIOURS, this.options.random);
    this.byBehaviour[behaviour] = (this.byBehaviour[behaviour] ?? 0) + 1;
    const arrivedAt = Date.now();
    const ack = () => {
      const list = this.answers.get(key) ?? [];
      list.push({ arrivedAt, answeredAt: Date.now() });
      this.answers.set(key, list);
    };
    const later = (ms: number, run: () => void) => {
      const t = setTimeout(() => {
        this.held.delete(t);
        run();
      }, ms);
      this.held.add(t);
    };
    switch (behaviour) {
      case 'ok':
        ack();
        return void res.writeHead(200).end('ok');
      case 'error500':
        return void res.writeHead(500).end('internal error');
      case 'unavailable503':
        return void res.writeHead(503, { 'retry-after': '1' }).end('busy');
      case 'rejected422':
        return void res.writeHead(422).end('unprocessable');
      case 'redirect':
        return void res.writeHead(302, { location: `${this.url}${path}/elsewhere` }).end();
      case 'reset':
        return void req.socket.destroy();
      case 'timeout':
        // Held past the sender's timeout, then dropped without an answer.
        later(this.options.senderTimeoutMs + 500, () => req.socket.destroy());
        return;
      case 'slow':
        later(100 + Math.floor(this.options.random() * (this.options.senderTimeoutMs / 2)), () => {
          if (res.destroyed) return;
          ack();
          res.writeHead(200).end('slow ok');
        });
        return;
      case 'huge':
        ack();
        return void this.streamHuge(res);
    }
  }

  /** 200 with a 10 MB body, written with backpressure; the sender reads 512 bytes and hangs up. */
  private async streamHuge(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(HUGE_BYTES) });
    for (let sent = 0; sent < HUGE_BYTES && !res.destroyed; sent += CHUNK.length) {
      if (!res.write(CHUNK)) {
        await new Promise<void>((r) => {
          res.once('drain', r);
          res.once('close', r);
        });
      }
    }
    if (!res.destroyed) res.end();
  }

  private verify(path: string, body: string, req: IncomingMessage): boolean {
    const secret = this.secrets.get(path);
    if (!secret) return false;
    try {
      new Webhook(secret).verify(body, {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      });
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    for (const t of this.held) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

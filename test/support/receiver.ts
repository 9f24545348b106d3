import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ScriptedResponse {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Wait this long before answering (timeouts, slow receivers). */
  readonly delayMs?: number;
  /** Drop the connection without answering. */
  readonly reset?: boolean;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly receivedAt: number;
  /** Whether `standardwebhooks` accepted the signature with the path's registered secret. */
  readonly verified: boolean;
  readonly webhookId: string;
  /** The status this receiver answered with (undefined for a dropped connection). */
  readonly answeredWith?: number;
}

/**
 * A scripted webhook receiver (after Svix's TestReceiver): per path, a queue of responses to
 * give (then a default), every request recorded, every signature verified with the
 * `standardwebhooks` package — the library a real customer would use.
 */
export class TestReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, ScriptedResponse[]>();
  private readonly defaults = new Map<string, ScriptedResponse>();
  private readonly secrets = new Map<string, string>();
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        const next = this.scripts.get(path)?.shift() ?? this.defaults.get(path) ?? { status: 200 };
        this.requests.push({
          path,
          headers: req.headers,
          body,
          receivedAt: Date.now(),
          verified: this.verify(path, body, req.headers),
          webhookId: String(req.headers['webhook-id'] ?? ''),
          ...(next.reset ? {} : { answeredWith: next.status }),
        });
        const answer = () => {
          if (next.reset) return req.socket.destroy();
          res.writeHead(next.status, next.headers);
          res.end(next.body ?? '');
        };
        if (next.delayMs) setTimeout(answer, next.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private verify(path: string, body: string, headers: http.IncomingHttpHeaders): boolean {
    const secret = this.secrets.get(path);
    if (!secret) return false;
    try {
      new Webhook(secret).verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      });
      return true;
    } catch {
      return false;
    }
  }

  /** Registers the secret `path`'s requests are verified with. */
  expectSecret(path: string, secret: string): this {
    this.secrets.set(path, secret);
    return this;
  }

  /** Answers the next requests on `path` with `responses`, in order, then with `fallback`. */
  script(path: string, responses: readonly ScriptedResponse[], fallback: ScriptedResponse = { status: 200 }): this {
    this.scripts.set(path, [...responses]);
    this.defaults.set(path, fallback);
    return this;
  }

  on(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /**
   * The first request of each delivery, in arrival order, on `path` (or on any path), among the
   * requests from index `since`. At-least-once may legitimately send a delivery twice, so a test
   * that counts deliveries rather than attempts counts these. A delivery is a (path, webhook-id)
   * pair: webhook-id is the event id, which one event shares across every subscription.
   */
  distinct(path?: string, since = 0): ReceivedRequest[] {
    const seen = new Set<string>();
    return this.requests.slice(since).filter((r) => {
      const key = `${r.path} ${r.webhookId}`;
      if ((path !== undefined && r.path !== path) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** How many distinct deliveries (see `distinct`) arrived on `path` (or any path) from index `since`. */
  distinctCount(path?: string, since = 0): number {
    return this.distinct(path, since).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

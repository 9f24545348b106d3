import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeHttpSender } from '#adapters/node-http-sender.ts';
import { parseAllowedPorts } from '#domain/target-ports.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A loopback receiver whose behaviour each test sets; it counts the connections it accepts. */
function receiver() {
  let handler: Handler = (_req, res) => res.end('ok');
  let connections = 0;
  const server = http.createServer((req, res) => handler(req, res));
  server.on('connection', () => connections++);
  return {
    server,
    set: (h: Handler) => (handler = h),
    get connections() {
      return connections;
    },
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
  };
}

const request = (url: string, timeoutMs: number) => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
  timeoutMs,
});

describe('NodeHttpSender', () => {
  const r = receiver();
  const timers: NodeJS.Timeout[] = [];
  let sender: NodeHttpSender;
  before(async () => {
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    sender = new NodeHttpSender({ allowPrivate: true });
  });
  after(async () => {
    for (const t of timers) clearInterval(t);
    sender.close();
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  });

  it('a 2xx whose body trickles past the timeout is a response (delivered), not a timeout to retry', async () => {
    r.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      let n = 0;
      // One byte every 100 ms for ~1 s: the status is in at once, the body lasts past the 300 ms timeout.
      const drip = setInterval(() => {
        if (n++ >= 10 || res.destroyed) {
          clearInterval(drip);
          return res.end();
        }
        res.write('.');
      }, 100);
      timers.push(drip);
    });
    const result = await sender.post(request(r.url('/trickle'), 300));
    assert.equal(result.kind, 'response', JSON.stringify(result));
    assert.equal(result.kind === 'response' && result.status, 200);
    assert.ok(result.durationMs < 900, `answered at the timeout, not when the body ended (${result.durationMs} ms)`);
  });

  it('a receiver that sends no status line within the timeout is a timeout', async () => {
    r.set(() => {
      // Never answers; the sender gives up.
    });
    const result = await sender.post(request(r.url('/silent'), 200));
    assert.equal(result.kind, 'timeout');
  });

  it('a port outside HOOKLINE_ALLOWED_PORTS is refused at send time without connecting', async () => {
    const strict = new NodeHttpSender({ allowPrivate: true, allowedPorts: parseAllowedPorts('443') });
    const before = r.connections;
    const result = await strict.post(request(r.url('/port'), 1000));
    strict.close();
    assert.equal(result.kind, 'forbidden_target');
    assert.match(
      result.kind === 'forbidden_target' ? result.message : '',
      /port \d+ is not allowed \(allowed ports: 443\)/,
    );
    assert.equal(r.connections, before, 'no connection was made');
  });

  it('the default ports let a local receiver on a random high port through', async () => {
    r.set((_req, res) => res.end('fine'));
    const result = await sender.post(request(r.url('/default'), 1000));
    assert.equal(result.kind, 'response');
    assert.equal(result.kind === 'response' && result.bodySnippet, 'fine');
  });

  it("sends the body's UTF-8 bytes with their length, Host from the URL, its own user-agent and length over a caller's, and the caller's other headers", async () => {
    let seen: { headers: IncomingMessage['headers']; raw: string[]; body: Buffer } | undefined;
    r.set((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        seen = { headers: req.headers, raw: req.rawHeaders, body: Buffer.concat(parts) };
        res.end();
      });
    });
    const body = '{"text":"é € 😀"}';
    const agent = new NodeHttpSender({ allowPrivate: true, userAgent: 'Hookline-test' });
    const result = await agent.post({
      url: r.url('/h?q=1'),
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'User-Agent': 'theirs',
        'content-length': '1',
      },
      body,
      timeoutMs: 1000,
    });
    agent.close();
    assert.equal(result.kind, 'response');
    assert.deepEqual(seen!.body, Buffer.from(body, 'utf8'));
    assert.equal(seen!.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(seen!.headers.host, new URL(r.url('/')).host);
    assert.equal(seen!.headers['user-agent'], 'Hookline-test');
    assert.equal(seen!.headers['webhook-id'], 'msg_1');
    assert.equal(seen!.headers['content-type'], 'application/json');
    const names = seen!.raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    assert.equal(
      names.filter((n) => n === 'user-agent' || n === 'content-length' || n === 'host').length,
      3,
      'each sent once',
    );
  });

  it("without a user-agent of its own, a caller's is sent", async () => {
    let ua: string | undefined;
    r.set((req, res) => {
      ua = req.headers['user-agent'];
      req.resume();
      req.on('end', () => res.end());
    });
    await sender.post({ ...request(r.url('/ua'), 1000), headers: { 'user-agent': 'theirs' } });
    assert.equal(ua, 'theirs');
  });

  it('a redirect is the response, not followed; a long body is cut to the snippet size', async () => {
    let hits = 0;
    r.set((req, res) => {
      hits++;
      req.resume();
      res.writeHead(302, { location: r.url('/elsewhere') });
      res.write('x'.repeat(300));
      setTimeout(() => res.end('y'.repeat(3000)), 10);
    });
    const result = await sender.post(request(r.url('/redirect'), 1000));
    assert.equal(result.kind === 'response' && result.status, 302);
    assert.equal(result.kind === 'response' && result.bodySnippet, 'x'.repeat(300) + 'y'.repeat(212));
    assert.equal(hits, 1);
  });

  it('the URL checks hold on every attempt, cached or not: private literals and ports are refused each time without connecting', async () => {
    const strict = new NodeHttpSender({ allowPrivate: false, allowedPorts: parseAllowedPorts('80,443,1024-65535') });
    const before = r.connections;
    for (let i = 0; i < 2; i++) {
      for (const url of [
        r.url('/p'),
        'http://169.254.169.254/latest',
        'http://[::1]:8080/',
        'http://[::ffff:10.0.0.1]/',
        'http://10.1.2.3:22/',
      ]) {
        const result = await strict.post(request(url, 1000));
        assert.equal(result.kind, 'forbidden_target', `${url}: ${JSON.stringify(result)}`);
      }
      assert.equal((await strict.post(request('not a url', 1000))).kind, 'forbidden_target');
    }
    strict.close();
    assert.equal(r.connections, before, 'no connection was made');
  });

  it('https goes through TLS (a plain-HTTP receiver fails the handshake: a tls or network error, never a response)', async () => {
    const result = await sender.post(request(r.url('/tls').replace('http:', 'https:'), 1000));
    assert.ok(result.kind === 'tls' || result.kind === 'network', JSON.stringify(result));
  });

  it('a kept-alive socket the receiver closed as it was reused is retried once on a new one, not failed', async () => {
    // The race a receiver's keep-alive timeout makes: the socket is closed as the POST goes out on
    // it, before the receiver read a byte. Here the second request on a socket is dropped unread.
    const served = new WeakMap<object, number>();
    const seen: string[] = [];
    r.set((req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      seen.push(`${req.url} #${n}`);
      if (req.url === '/stale' && n === 2) return req.socket.destroy();
      res.end('ok');
    });
    const first = await sender.post(request(r.url('/stale'), 1000));
    assert.equal(first.kind === 'response' && first.status, 200, JSON.stringify(first));
    const connectionsBefore = r.connections;
    const second = await sender.post(request(r.url('/stale'), 1000));
    assert.equal(second.kind === 'response' && second.status, 200, JSON.stringify(second));
    assert.equal(r.connections, connectionsBefore + 1, 'the retry went out on a new connection');
    assert.deepEqual(seen.slice(-3), ['/stale #1', '/stale #2', '/stale #1']);
  });

  it('a new socket closed before the response is a network error, not retried', async () => {
    let requests = 0;
    r.set((req) => {
      requests++;
      req.socket.destroy();
    });
    // A fresh agent: no kept-alive socket to reuse, so the first socket is a new one.
    const fresh = new NodeHttpSender({ allowPrivate: true });
    try {
      const result = await fresh.post(request(r.url('/reset'), 1000));
      assert.equal(result.kind, 'network', JSON.stringify(result));
      assert.equal(requests, 1);
    } finally {
      fresh.close();
    }
  });
});

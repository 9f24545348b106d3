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

const request = (url: string, timeoutMs: number) => ({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs });

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
    assert.match(result.kind === 'forbidden_target' ? result.message : '', /port \d+ is not allowed \(allowed ports: 443\)/);
    assert.equal(r.connections, before, 'no connection was made');
  });

  it('the default ports let a local receiver on a random high port through', async () => {
    r.set((_req, res) => res.end('fine'));
    const result = await sender.post(request(r.url('/default'), 1000));
    assert.equal(result.kind, 'response');
    assert.equal(result.kind === 'response' && result.bodySnippet, 'fine');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { onLoopbackOnly } from '#local/loopback-only.ts';

const listening = (server: net.Server, listen: (s: net.Server, done: () => void) => void) =>
  new Promise<string>((resolve) => listen(server, () => resolve((server.address() as AddressInfo).address)));
const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('onLoopbackOnly()', () => {
  // [how the library asks to listen]
  const forms: ReadonlyArray<readonly [string, (s: net.Server, done: () => void) => void]> = [
    [
      'options with host 0.0.0.0 (what fauxqs passes via fastify)',
      (s, done) => s.listen({ port: 0, host: '0.0.0.0' }, done),
    ],
    ['options with host ::', (s, done) => s.listen({ port: 0, host: '::' }, done)],
    ['options without a host', (s, done) => s.listen({ port: 0 }, done)],
    ['port and host 0.0.0.0', (s, done) => s.listen(0, '0.0.0.0', done)],
    ['a port alone', (s, done) => s.listen(0, done)],
  ];
  for (const [name, listen] of forms) {
    it(`binds 127.0.0.1 when a server asks for every interface: ${name}`, async () => {
      const server = http.createServer();
      const address = await onLoopbackOnly(() => listening(server, listen));
      await close(server);
      assert.equal(address, '127.0.0.1');
    });
  }

  it('leaves an explicit address alone, and listen() as it was once done', async () => {
    const before = net.Server.prototype.listen;
    const server = http.createServer();
    assert.equal(
      await onLoopbackOnly(() => listening(server, (s, done) => s.listen(0, '127.0.0.1', done))),
      '127.0.0.1',
    );
    await close(server);
    assert.equal(net.Server.prototype.listen, before);
    const outside = http.createServer();
    assert.notEqual(
      await listening(outside, (s, done) => s.listen({ port: 0, host: '0.0.0.0' }, done)),
      '127.0.0.1',
      'only inside the call',
    );
    await close(outside);
  });
});

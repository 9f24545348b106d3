import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startLambdaApi, type LambdaApi } from '#local/lambda-api.ts';
import { INVOKE_TOKEN_HEADER } from '#local/runtime-file.ts';

describe('local Lambda Invoke API: only the CLI of this run may invoke', () => {
  let api: LambdaApi;
  const calls: unknown[] = [];
  before(async () => {
    api = await startLambdaApi({
      functions: {
        replay: async (payload) => {
          calls.push(payload);
          return { ok: true };
        },
      },
      onError: () => {},
    });
  });
  after(() => api.close());

  const invoke = (headers: Record<string, string>, body = '{"deliveryId":"dlv_1"}', fn = 'replay') =>
    fetch(`${api.url}/2015-03-31/functions/${fn}/invocations`, { method: 'POST', headers, body });

  it('has a fresh, unguessable token per run', async () => {
    assert.match(api.token, /^[A-Za-z0-9_-]{43,}$/);
    const other = await startLambdaApi({ functions: {}, onError: () => {} });
    assert.notEqual(other.token, api.token);
    await other.close();
  });

  it('invokes with the token, as the SDK sends it (application/octet-stream)', async () => {
    const res = await invoke({ [INVOKE_TOKEN_HEADER]: api.token, 'content-type': 'application/octet-stream' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.deepEqual(calls.at(-1), { deliveryId: 'dlv_1' });
  });

  // [what, headers]: each is refused with 403 and the function is not called.
  const refused: ReadonlyArray<readonly [string, (token: string) => Record<string, string>]> = [
    ['no token', () => ({ 'content-type': 'application/octet-stream' })],
    ['a wrong token', () => ({ [INVOKE_TOKEN_HEADER]: 'x'.repeat(43), 'content-type': 'application/octet-stream' })],
    [
      'a token one character short',
      (t) => ({ [INVOKE_TOKEN_HEADER]: t.slice(0, -1), 'content-type': 'application/octet-stream' }),
    ],
    [
      'a browser form post (text/plain), even with the token',
      (t) => ({ [INVOKE_TOKEN_HEADER]: t, 'content-type': 'text/plain' }),
    ],
    ['text/plain with a charset', (t) => ({ [INVOKE_TOKEN_HEADER]: t, 'content-type': 'text/plain;charset=UTF-8' })],
    [
      'a urlencoded form post',
      (t) => ({ [INVOKE_TOKEN_HEADER]: t, 'content-type': 'application/x-www-form-urlencoded' }),
    ],
    ['a multipart form post', (t) => ({ [INVOKE_TOKEN_HEADER]: t, 'content-type': 'multipart/form-data; boundary=x' })],
    [
      'any request with an Origin header',
      (t) => ({
        [INVOKE_TOKEN_HEADER]: t,
        'content-type': 'application/octet-stream',
        origin: 'http://127.0.0.1:3000',
      }),
    ],
    [
      'an Origin of null (sandboxed page)',
      (t) => ({ [INVOKE_TOKEN_HEADER]: t, 'content-type': 'application/octet-stream', origin: 'null' }),
    ],
  ];
  for (const [what, headers] of refused) {
    it(`refuses ${what} (403), calling nothing`, async () => {
      const before = calls.length;
      const res = await invoke(headers(api.token));
      assert.equal(res.status, 403);
      assert.ok(res.headers.get('x-amzn-errortype'), 'an AWS-style error type the SDK understands');
      assert.match(((await res.json()) as { message: string }).message, /refused/);
      assert.equal(calls.length, before);
    });
  }

  it('refuses before saying which functions exist', async () => {
    const res = await invoke({ 'content-type': 'application/octet-stream' }, '{}', 'no-such-function');
    assert.equal(res.status, 403);
  });

  it('refuses before reading the body: a client that has sent only its headers gets the answer', async () => {
    const { port } = new URL(api.url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('no answer within 3 s'));
      }, 3000);
      socket.on('connect', () =>
        socket.write(
          'POST /2015-03-31/functions/replay/invocations HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 7000000\r\n\r\n',
        ),
      );
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
    });
    assert.match(head, /^HTTP\/1\.1 403 /);
  });
});

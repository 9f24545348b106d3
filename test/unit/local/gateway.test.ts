import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { startGateway, type Gateway } from '#local/gateway.ts';

const GOOD = 'Bearer hk_admin_gateway_test_0123456789';
/** APIGatewayProxyEventV2 leaves the authorizer out of its request context; the stack's routes put one there. */
const authorizerOf = (event: APIGatewayProxyEventV2) => (event.requestContext as { authorizer?: unknown }).authorizer;

interface RawAnswer {
  readonly head: string;
  /** Body bytes the client had written when the answer arrived. */
  readonly sentWhenAnswered: number;
  /** Whether the server closed the connection after answering. */
  readonly closed: boolean;
}

/**
 * Sends `headers` with a Content-Length of `declared` bytes, then only the first `first` bytes
 * of the body, and waits for the answer: a server that reads the body before it answers would
 * wait forever for the rest.
 */
function rawPost(url: string, headers: Record<string, string>, declared: number, first: number): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let head = '';
    let sent = 0;
    let sentWhenAnswered = -1;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 3 s (head so far: ${JSON.stringify(head)})`));
    }, 3000);
    socket.on('connect', () => {
      const lines = [
        `POST /v1/events HTTP/1.1`,
        'host: 127.0.0.1',
        `content-length: ${declared}`,
        'content-type: application/json',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (first > 0) {
        socket.write(Buffer.alloc(first, 0x61));
        sent = first;
      }
    });
    socket.on('data', (chunk: Buffer) => {
      if (sentWhenAnswered < 0) sentWhenAnswered = sent;
      head += chunk.toString('latin1');
    });
    socket.on('error', () => {
      // A reset after the answer still counts as closed.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ head, sentWhenAnswered, closed: true });
    });
  });
}

describe('local gateway', () => {
  let gateway: Gateway;
  const apiCalls: APIGatewayProxyEventV2[] = [];
  const authorizerCalls: APIGatewayRequestAuthorizerEventV2[] = [];
  before(async () => {
    gateway = await startGateway({
      port: 0,
      api: async (event) => {
        apiCalls.push(event);
        return { statusCode: 200, body: JSON.stringify({ bytes: (event.body ?? '').length }) };
      },
      authorizer: async (event) => {
        authorizerCalls.push(event);
        return event.headers?.authorization === GOOD
          ? { isAuthorized: true, context: { role: 'admin' } }
          : { isAuthorized: false };
      },
      onError: () => {},
    });
  });
  after(() => gateway.close());

  it('answers an unauthenticated request 401 before reading its body, and closes the connection', async () => {
    const answer = await rawPost(gateway.url, {}, 50 * 1024 * 1024, 1024);
    assert.match(answer.head, /^HTTP\/1\.1 401 /);
    assert.equal(answer.sentWhenAnswered, 1024, 'answered while 50 MiB were still to come');
    assert.match(answer.head, /connection: close/i);
    assert.equal(answer.closed, true);
    assert.equal(apiCalls.length, 0);
  });

  it('refuses a wrong key the same way', async () => {
    const answer = await rawPost(gateway.url, { authorization: 'Bearer nope' }, 10 * 1024 * 1024, 10);
    assert.match(answer.head, /^HTTP\/1\.1 401 /);
  });

  it('does not send 100 Continue to an unauthenticated client that asks for it', async () => {
    const answer = await rawPost(gateway.url, { expect: '100-continue' }, 10 * 1024 * 1024, 0);
    assert.match(answer.head, /^HTTP\/1\.1 401 /);
    assert.doesNotMatch(answer.head, /100 Continue/);
  });

  it('an authenticated request declaring more than the cap is 413 before its body is read', async () => {
    const answer = await rawPost(gateway.url, { authorization: GOOD }, 2 * 1024 * 1024, 1024);
    assert.match(answer.head, /^HTTP\/1\.1 413 /);
    assert.equal(answer.sentWhenAnswered, 1024);
    assert.equal(apiCalls.length, 0);
  });

  it('an authenticated request within the cap reaches the API with its body', async () => {
    const body = JSON.stringify({ type: 'a.b', payload: { n: 1 } });
    const res = await fetch(`${gateway.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: GOOD, 'content-type': 'application/json' },
      body,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { bytes: body.length });
    assert.equal(apiCalls.at(-1)?.body, body);
  });

  it('an authenticated client that asks for 100 Continue gets it, then its body reaches the API', async () => {
    const answer = await rawContinue(gateway.url);
    assert.match(answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    assert.equal(apiCalls.at(-1)?.body, '{"type":"a.b","payload":{}}');
  });

  it('/health answers without a key, as on AWS', async () => {
    const res = await fetch(`${gateway.url}/health`);
    assert.equal(res.status, 200);
    assert.equal(apiCalls.at(-1)?.routeKey, 'GET /health');
    assert.equal(authorizerOf(apiCalls.at(-1)!), undefined);
  });

  it('does not invoke the authorizer without an Authorization header, as HTTP API does not', async () => {
    const before = authorizerCalls.length;
    const res = await fetch(`${gateway.url}/v1/subscriptions`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
    assert.equal(authorizerCalls.length, before);
  });

  it('gives the authorizer an HTTP API v2 REQUEST event', async () => {
    await fetch(`${gateway.url}/v1/subscriptions?limit=5`, { headers: { authorization: GOOD } });
    const event = authorizerCalls.at(-1)!;
    assert.equal(event.version, '2.0');
    assert.equal(event.type, 'REQUEST');
    assert.equal(event.headers?.authorization, GOOD);
    assert.deepEqual(event.identitySource, [GOOD]);
    assert.equal(event.routeKey, 'ANY /v1/{proxy+}');
    assert.equal(event.rawPath, '/v1/subscriptions');
    assert.match(event.routeArn, /\/\$default\/GET\/v1\/subscriptions$/);
  });

  it('gives the API a payload 2.0 event: the authorizer context under authorizer.lambda, repeated parameters comma-joined beside the raw query', async () => {
    await fetch(`${gateway.url}/v1/deliveries?state=a&state=b&limit=2`, {
      method: 'GET',
      headers: { authorization: GOOD },
    });
    const event = apiCalls.at(-1)!;
    assert.equal(event.version, '2.0');
    assert.equal(event.requestContext.http.method, 'GET');
    assert.equal(event.rawPath, '/v1/deliveries');
    assert.equal(event.rawQueryString, 'state=a&state=b&limit=2');
    assert.deepEqual(event.queryStringParameters, { state: 'a,b', limit: '2' });
    assert.deepEqual(event.pathParameters, { proxy: 'deliveries' });
    assert.equal(event.requestContext.stage, '$default');
    assert.deepEqual(authorizerOf(event), { lambda: { role: 'admin' } });
    assert.equal(event.body, undefined);
    assert.equal(event.isBase64Encoded, false);
  });
});

describe('local gateway: an authorizer that fails', () => {
  it('answers 500 and reports the error (a refusal is isAuthorized: false, never a throw)', async () => {
    const errors: unknown[] = [];
    let apiCalled = false;
    const gateway = await startGateway({
      port: 0,
      api: async () => ((apiCalled = true), { statusCode: 200, body: '' }),
      authorizer: async () => {
        throw new Error('dynamodb unreachable');
      },
      onError: (error) => void errors.push(error),
    });
    try {
      const res = await fetch(`${gateway.url}/v1/subscriptions`, { headers: { authorization: GOOD } });
      assert.equal(res.status, 500);
      assert.equal(errors.length, 1);
      assert.equal(apiCalled, false);
    } finally {
      await gateway.close();
    }
  });
});

describe('local gateway as a Function URL (no authorizer: the api checks keys itself)', () => {
  let gateway: Gateway;
  const apiCalls: APIGatewayProxyEventV2[] = [];
  before(async () => {
    gateway = await startGateway({
      port: 0,
      api: async (event) => {
        apiCalls.push(event);
        return {
          statusCode: 401,
          body: JSON.stringify({ error: { code: 'unauthorized', message: 'judged by the api' } }),
        };
      },
      onError: () => {},
    });
  });
  after(() => gateway.close());

  it('hands every request to the api, with or without a key, as a payload 2.0 event with no authorizer context', async () => {
    for (const headers of [{}, { authorization: GOOD }, { authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const res = await fetch(`${gateway.url}/v1/subscriptions?a=1`, { headers });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: { message: string } }).error.message, 'judged by the api');
      const event = apiCalls.at(-1)!;
      assert.equal(authorizerOf(event), undefined);
      assert.equal(event.routeKey, '$default', 'a Function URL has one route');
      assert.equal(event.rawPath, '/v1/subscriptions');
      assert.equal(event.headers.authorization, headers.authorization);
    }
    assert.equal(apiCalls.length, 3);
  });

  it('still refuses a body over the cap at once, before reading it', async () => {
    const calls = apiCalls.length;
    const answer = await rawPost(gateway.url, {}, 2 * 1024 * 1024, 1024);
    assert.match(answer.head, /^HTTP\/1\.1 413 /);
    assert.equal(answer.sentWhenAnswered, 1024);
    assert.equal(apiCalls.length, calls);
  });
});

/** An authenticated POST with Expect: 100-continue that sends its body only once told to continue. */
function rawContinue(url: string): Promise<string> {
  const { port } = new URL(url);
  const body = '{"type":"a.b","payload":{}}';
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 3 s (${JSON.stringify(text)})`));
    }, 3000);
    socket.on('connect', () => {
      socket.write(
        `POST /v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${GOOD}\r\nexpect: 100-continue\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !text.includes('200')) socket.write(body);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

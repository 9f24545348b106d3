import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publish } from '#app/publish/publish.ts';
import { processDelivery } from '#app/send/send.ts';
import { createSubscription } from '#app/subscriptions/subscriptions.ts';
import { ADMIN } from '#app/access.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { ForbiddenTargetError } from '#domain/errors.ts';
import { DEFAULT_PORT_RANGES, parseAllowedPorts } from '#domain/target-ports.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { fakeDeps, fanOutStored } from '#test/fakes.ts';

class RecordingHttp implements HttpSender {
  readonly requests: HttpRequest[] = [];
  async post(request: HttpRequest): Promise<AttemptResult> {
    this.requests.push(request);
    return { kind: 'response', status: 204, bodySnippet: '', durationMs: 1 };
  }
}

describe('createSubscription(): the normalised URL is stored and sent', () => {
  it('stores url.href of what was written, and the POST goes to exactly that', async () => {
    const http = new RecordingHttp();
    const deps = { ...fakeDeps(), allowedPorts: DEFAULT_PORT_RANGES, http, attemptTimeoutMs: 1000 };
    const sub = await createSubscription(deps, ADMIN, { url: 'HTTP://Example.COM:443/a/../b', eventTypes: ['*'] });
    assert.equal(sub.url, 'http://example.com:443/b');
    assert.equal(deps.subscriptions.items.get(sub.id)!.url, 'http://example.com:443/b');

    const published = await publish(deps, { type: 'order.created', payloadJson: '{}' });
    assert.equal(published.deliveryIds.length, 1);
    // The message publish sent: it carries what the delivery's first row needs (publish writes none).
    await fanOutStored(deps);
    const [message] = deps.queue.messages();
    assert.equal(message!.deliveryId, published.deliveryIds[0]);
    await processDelivery(deps, message!, { receiveCount: 1 });
    assert.deepEqual(
      http.requests.map((r) => r.url),
      ['http://example.com:443/b'],
    );
  });

  it('refuses a port the deployment does not allow, storing nothing', async () => {
    const deps = { ...fakeDeps(), allowedPorts: parseAllowedPorts('443') };
    await assert.rejects(
      createSubscription(deps, ADMIN, { url: 'http://example.com/hook', eventTypes: ['*'] }),
      (e: unknown) =>
        e instanceof ForbiddenTargetError && e.message === 'url port 80 is not allowed (allowed ports: 443)',
    );
    assert.equal(deps.subscriptions.items.size, 0);
  });
});

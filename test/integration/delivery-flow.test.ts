import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

describe('delivery engine on the local runtime', () => {
  let stack: LocalStack;
  before(async () => {
    stack = await startLocalStack();
  });
  after(() => stack.stop());

  it('delivers a signed event that standardwebhooks verifies, with the stored body byte for byte', async () => {
    await stack.subscribe('/ok', { eventTypes: ['invoice.paid'] });
    const { eventId, deliveryIds } = await stack.publish('invoice.paid', { amount: 42, note: 'ünïcödé ✓' });
    assert.equal(deliveryIds.length, 1);
    const d = await stack.waitForState(deliveryIds[0]!, ['delivered']);
    const [req] = stack.receiver.on('/ok');
    assert.ok(req, 'receiver got the request');
    assert.equal(req.verified, true);
    assert.equal(req.webhookId, eventId);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.body, d.body);
    assert.deepEqual(JSON.parse(req.body).data, { amount: 42, note: 'ünïcödé ✓' });
    assert.equal(d.attempts, 1);
    assert.equal(d.lastStatus, 200);
    assert.equal(d.attemptLog.length, 1);
    assert.equal(d.attemptLog[0].status, 200);
  });

  it("sends the payload's source text byte for byte as data: first attempt, retry and replay", async () => {
    // Numbers, escapes, whitespace and key order that a JSON.parse/JSON.stringify round trip would all rewrite.
    const payload =
      '{ "z" : 1.0,\n\t"a":[1e2 , -0, 0.50, 9007199254740992, "9007199254740993"],\r\n "s":"\\u00e9\\n\\/", "é":"é ✓", "n":null }';
    stack.receiver.script('/exact', [{ status: 503 }], { status: 200 });
    await stack.subscribe('/exact', { eventTypes: ['exact.bytes'] });
    const res = await stack.api.post(
      '/v1/events',
      `{"id":"exact-1",\n  "type":"exact.bytes", "payload":   ${payload}  \n}`,
    );
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.deliveryIds[0];
    const delivered = await stack.waitForState(id, ['delivered']);
    const replayed = await stack.api.post(`/v1/deliveries/${id}/replay`);
    assert.equal(replayed.status, 202);
    await waitFor('the replay to arrive', () => stack.receiver.on('/exact').length === 3);
    const requests = stack.receiver.on('/exact');
    assert.deepEqual(
      requests.map((r) => r.answeredWith),
      [503, 200, 200],
      'first attempt, retry, replay',
    );
    const { timestamp } = JSON.parse(delivered.body);
    const expected = `{"id":"exact-1","type":"exact.bytes","timestamp":"${timestamp}","data":${payload}}`;
    assert.equal(delivered.body, expected, 'stored with the payload as sent');
    for (const r of requests) {
      assert.equal(r.body, expected);
      assert.equal(r.verified, true);
    }
  });

  it('is idempotent on the event id: a repeat answers 200 with the same deliveries and sends nothing new', async () => {
    await stack.subscribe('/idem', { eventTypes: ['order.created'] });
    const first = await stack.api.post('/v1/events', { id: 'order-1001', type: 'order.created', payload: { n: 1 } });
    assert.equal(first.status, 202);
    await stack.waitForState(first.body.deliveryIds[0], ['delivered']);
    const again = await stack.api.post('/v1/events', { id: 'order-1001', type: 'order.created', payload: { n: 1 } });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.deliveryIds, first.body.deliveryIds);
    // Another payload under the id is not a repeat but another event: refused, nothing sent.
    const other = await stack.api.post('/v1/events', { id: 'order-1001', type: 'order.created', payload: { n: 2 } });
    assert.deepEqual([other.status, other.body.error?.code], [422, 'idempotency_key_reused']);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(stack.receiver.on('/idem').length, 1);
  });

  it('fans out by event type: *, exact and prefix.* match; others do not', async () => {
    const exact = await stack.subscribe('/fan-exact', { eventTypes: ['user.created'] });
    const prefix = await stack.subscribe('/fan-prefix', { eventTypes: ['user.*'] });
    const other = await stack.subscribe('/fan-other', { eventTypes: ['billing.*'] });
    const { deliveryIds } = await stack.publish('user.created', {});
    const deliveries = await Promise.all(deliveryIds.map((id) => stack.delivery(id)));
    const subs = new Set(deliveries.map((d) => d.subscriptionId));
    assert.ok(subs.has(exact.id) && subs.has(prefix.id));
    assert.ok(!subs.has(other.id));
  });

  it('retries 500 and 503 (honouring Retry-After) with visibility-timeout backoff, then delivers', async () => {
    stack.receiver.script(
      '/flaky',
      [
        { status: 500, body: 'boom' },
        { status: 503, headers: { 'retry-after': '2' } },
      ],
      { status: 204 },
    );
    await stack.subscribe('/flaky', {
      eventTypes: ['flaky.test'],
      retryPolicy: { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 5, jitter: 0, deadlineSeconds: 30 },
    });
    const { deliveryIds } = await stack.publish('flaky.test', { x: 1 });
    const d = await stack.waitForState(deliveryIds[0]!, ['delivered']);
    const reqs = stack.receiver.on('/flaky');
    assert.equal(reqs.length, 3);
    assert.ok(
      reqs.every((r) => r.verified),
      'every attempt carries a valid signature',
    );
    assert.ok(
      reqs.every((r) => r.body === reqs[0]!.body),
      'body identical on every attempt',
    );
    assert.ok(new Set(reqs.map((r) => r.headers['webhook-id'])).size === 1, 'webhook-id stable across retries');
    assert.ok(reqs[1]!.receivedAt - reqs[0]!.receivedAt >= 900, 'first retry waits the 1 s backoff');
    assert.ok(reqs[2]!.receivedAt - reqs[1]!.receivedAt >= 1900, 'Retry-After: 2 honoured');
    assert.deepEqual(
      d.attemptLog.map((a: any) => a.status),
      [500, 503, 204],
    );
    assert.equal(d.attemptLog[0].responseSnippet, 'boom');
    assert.equal(d.attempts, 3);
  });

  it('dead-letters a permanent 4xx at once as failed, listed in the dead letters', async () => {
    stack.receiver.script('/bad', [], { status: 422, body: 'unprocessable' });
    const sub = await stack.subscribe('/bad', { eventTypes: ['bad.test'] });
    const { deliveryIds } = await stack.publish('bad.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['failed']);
    assert.equal(d.attempts, 1);
    assert.equal(d.lastStatus, 422);
    assert.match(d.lastError, /HTTP 422/);
    const dl = await stack.api.get(`/v1/dead-letters?subscriptionId=${sub.id}`);
    assert.deepEqual(
      dl.body.items.map((i: any) => i.id),
      [deliveryIds[0]],
    );
    const all = await stack.api.get('/v1/dead-letters');
    assert.ok(all.body.items.some((i: any) => i.id === deliveryIds[0]));
  });

  it('410 Gone dead-letters the delivery and disables the subscription', async () => {
    stack.receiver.script('/gone', [], { status: 410 });
    const sub = await stack.subscribe('/gone', { eventTypes: ['gone.test'] });
    const { deliveryIds } = await stack.publish('gone.test', {});
    await stack.waitForState(deliveryIds[0]!, ['failed']);
    const s = await stack.api.get(`/v1/subscriptions/${sub.id}`);
    assert.equal(s.body.state, 'disabled');
    assert.match(s.body.stateReason, /410/);
    const next = await stack.publish('gone.test', {});
    assert.equal(next.deliveryIds.length, 0, 'a disabled subscription gets no new deliveries');
  });

  it('expires a delivery that keeps failing once maxAttempts is spent', async () => {
    stack.receiver.script('/down', [], { status: 503 });
    await stack.subscribe('/down', {
      eventTypes: ['down.test'],
      retryPolicy: {
        initialDelaySeconds: 1,
        multiplier: 1,
        maxDelaySeconds: 1,
        jitter: 0,
        deadlineSeconds: 60,
        maxAttempts: 3,
      },
    });
    const { deliveryIds } = await stack.publish('down.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['expired']);
    assert.equal(d.attempts, 3);
    assert.equal(stack.receiver.on('/down').length, 3);
    assert.match(d.lastError, /gave up after 3 attempts/);
  });

  it('expires when the next retry would land past the deadline', async () => {
    stack.receiver.script('/deadline', [], { status: 500 });
    await stack.subscribe('/deadline', {
      eventTypes: ['deadline.test'],
      retryPolicy: { initialDelaySeconds: 2, multiplier: 1, maxDelaySeconds: 2, jitter: 0, deadlineSeconds: 3 },
    });
    const { deliveryIds } = await stack.publish('deadline.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['expired']);
    assert.match(d.lastError, /retry deadline/);
    assert.ok(d.attempts <= 2);
  });

  it('treats a receiver slower than the attempt timeout as transient and retries', async () => {
    stack.receiver.script('/slow', [{ status: 200, delayMs: 3000 }], { status: 200 });
    await stack.subscribe('/slow', { eventTypes: ['slow.test'] });
    const { deliveryIds } = await stack.publish('slow.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['delivered'], 30_000);
    assert.match(d.attemptLog[0].error, /timeout/);
    assert.equal(d.attemptLog[1].status, 200);
  });

  it('never follows redirects: a 302 is recorded and retried, the Location is never called', async () => {
    stack.receiver.script('/moved', [{ status: 302, headers: { location: `${stack.receiver.url}/elsewhere` } }], {
      status: 200,
    });
    await stack.subscribe('/moved', { eventTypes: ['moved.test'] });
    const { deliveryIds } = await stack.publish('moved.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['delivered']);
    assert.equal(d.attemptLog[0].status, 302);
    assert.equal(stack.receiver.on('/elsewhere').length, 0);
  });

  it('caps the captured response at 512 bytes', async () => {
    stack.receiver.script('/big', [{ status: 500, body: 'x'.repeat(100_000) }], { status: 200 });
    await stack.subscribe('/big', { eventTypes: ['big.test'] });
    const { deliveryIds } = await stack.publish('big.test', {});
    const d = await stack.waitForState(deliveryIds[0]!, ['delivered']);
    assert.equal(Buffer.byteLength(d.attemptLog[0].responseSnippet), 512);
  });

  it('replays a failed delivery: pending again with attempts 0, delivered, earlier attempts kept', async () => {
    stack.receiver.script('/replay', [{ status: 400, body: 'no' }], { status: 200 });
    await stack.subscribe('/replay', { eventTypes: ['replay.test'] });
    const { deliveryIds } = await stack.publish('replay.test', { v: 1 });
    const id = deliveryIds[0]!;
    const failed = await stack.waitForState(id, ['failed']);
    const res = await stack.api.post(`/v1/deliveries/${id}/replay`);
    assert.equal(res.status, 202);
    assert.equal(res.body.state, 'pending');
    assert.equal(res.body.attempts, 0);
    assert.ok(res.body.giveUpAt > failed.giveUpAt, 'fresh give_up_at');
    const d = await stack.waitForState(id, ['delivered']);
    assert.deepEqual(
      d.attemptLog.map((a: any) => [a.seq, a.attempt, a.status]),
      [
        [1, 1, 400],
        [2, 1, 200],
      ],
    );
    const [first, second] = stack.receiver.on('/replay');
    assert.equal(first!.body, second!.body, 'replay sends the same bytes');
    assert.equal(first!.webhookId, second!.webhookId, 'replay keeps webhook-id for receiver dedupe');
    const again = await stack.api.post(`/v1/deliveries/${id}/replay`);
    assert.equal(again.status, 202, 'a delivered delivery can be replayed too');
    await stack.waitForState(id, ['delivered']);
  });

  it('refuses to replay a delivery that is still pending, with 409', async () => {
    stack.receiver.script('/busy', [], { status: 503 });
    await stack.subscribe('/busy', {
      eventTypes: ['busy.test'],
      retryPolicy: { initialDelaySeconds: 30, multiplier: 1, maxDelaySeconds: 30, jitter: 0, deadlineSeconds: 600 },
    });
    const { deliveryIds } = await stack.publish('busy.test', {});
    await waitFor('first attempt', () => stack.receiver.on('/busy').length === 1);
    await stack.waitForState(deliveryIds[0]!, ['pending']);
    const res = await stack.api.post(`/v1/deliveries/${deliveryIds[0]}/replay`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
    assert.match(res.body.error.message, /pending/);
  });
});

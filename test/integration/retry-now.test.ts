import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '#test/api-client.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/** Shortened from the default (100 a minute) so the test reaches it in a few calls; a day's window, so it does not roll over mid-test. */
const LIMIT = 2;
/** A retry ten minutes away: what someone who fixed their endpoint would otherwise wait out. */
const FAR = { initialDelaySeconds: 600, multiplier: 1, maxDelaySeconds: 600, jitter: 0, deadlineSeconds: 3600 };
/** A retry close enough that the test sees the overtaken message arrive (past Retry now's 10 s lead). */
const SOON_SECONDS = 15;
const SOON = { ...FAR, initialDelaySeconds: SOON_SECONDS, maxDelaySeconds: SOON_SECONDS };

/** Retry now on the local runtime: a delivery waiting out its backoff delivered within seconds, once; the refusals. */
describe('Retry now', () => {
  let stack: LocalStack;
  let acme: ApiClient;
  let globex: ApiClient;
  let far: { id: string };

  /** Publishes `n` events for acme's subscription at `path` and waits for each first attempt (a 503) to be recorded. */
  async function failedDeliveries(path: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(...(await stack.publish(`${path.slice(1)}.test`, { i }, undefined, { tenantId: 'acme' })).deliveryIds);
    for (const id of ids)
      await waitFor(`${id}'s first attempt`, async () =>
        (await stack.delivery(id)).attempts === 1 ? true : undefined,
      );
    return ids;
  }

  before(async () => {
    // All of a test's retries must fall in one fixed window (aligned to the day): not at midnight UTC.
    const intoDay = Date.now() % 86_400_000;
    if (intoDay > 86_400_000 - 120_000) await new Promise((r) => setTimeout(r, 86_400_000 - intoDay + 500));
    stack = await startLocalStack({
      env: { HOOKLINE_CUSTOMER_REPLAY_LIMIT: String(LIMIT), HOOKLINE_CUSTOMER_REPLAY_WINDOW_SECONDS: '86400' },
    });
    far = await stack.subscribe('/far', { eventTypes: ['far.test'], tenantId: 'acme', retryPolicy: FAR });
    acme = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/acme/keys')).body.key);
    globex = apiClient(stack.runtime.url, (await stack.api.post('/v1/tenants/globex/keys')).body.key);
  });
  after(() => stack.stop());

  it("a delivery ten minutes from its next attempt is delivered within seconds, by exactly one more POST; the limit is Resend's, then 429", async (t) => {
    stack.receiver.script('/far', [{ status: 503 }, { status: 503 }, { status: 503 }], { status: 200 });
    const [first, second, third] = await failedDeliveries('/far', 3);
    const waiting = await stack.delivery(first!);
    const thirdBefore = await stack.delivery(third!);
    assert.ok(Date.parse(waiting.nextAttemptAt) - Date.now() > 500_000, `next attempt at ${waiting.nextAttemptAt}`);
    const since = stack.receiver.requests.length;
    const startedMs = Date.now();

    const res = await acme.post(`/v1/deliveries/${first}/retry`);

    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual([res.body.state, res.body.attempts], ['pending', 0]);
    assert.ok(Math.abs(Date.parse(res.body.nextAttemptAt) - startedMs) < 5_000, `due at ${res.body.nextAttemptAt}`);
    assert.ok(Date.parse(res.body.giveUpAt) - startedMs > 3_500_000, 'a fresh deadline');
    const delivered = await stack.waitForState(first!, ['delivered'], 10_000);
    t.diagnostic(`delivered ${Date.now() - startedMs} ms after Retry now`);
    assert.ok(Date.now() - startedMs < 10_000);
    await new Promise((r) => setTimeout(r, 1500));
    const after = stack.receiver.on('/far').filter((r) => stack.receiver.requests.indexOf(r) >= since);
    assert.equal(after.length, 1, 'exactly one POST after Retry now');
    assert.equal(stack.receiver.distinctCount('/far', since), 1);
    assert.deepEqual([after[0]!.verified, after[0]!.webhookId], [true, waiting.eventId]);
    assert.deepEqual(
      delivered.attemptLog.map((a: { seq: number; attempt: number; status: number }) => [a.seq, a.attempt, a.status]),
      [
        [1, 1, 503],
        [2, 1, 200],
      ],
      'the attempt log keeps the failure and restarts the run, as after a replay',
    );

    assert.equal((await acme.post(`/v1/deliveries/${second}/retry`)).status, 202);
    const refused = await acme.post(`/v1/deliveries/${third}/retry`);
    t.diagnostic(
      `over the limit: ${refused.status}, Retry-After ${refused.headers.get('retry-after')}: ${refused.body.error?.message}`,
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.match(
      refused.body.error.message,
      new RegExp(`at most ${LIMIT} replays, retries and test events per 86400 s for subscription ${far.id}`),
    );
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const thirdAfter = await stack.delivery(third!);
    assert.deepEqual(
      [thirdAfter.nextAttemptAt, thirdAfter.attempts, thirdAfter.giveUpAt],
      [thirdBefore.nextAttemptAt, 1, thirdBefore.giveUpAt],
      'the refused retry changed nothing',
    );
    assert.equal((await acme.post(`/v1/deliveries/${first}/replay`)).status, 429, 'Resend counts in the same window');
    assert.equal((await stack.api.post(`/v1/deliveries/${third}/retry`)).status, 202, 'the admin key is not limited');
    await Promise.all([second!, third!].map((id) => stack.waitForState(id, ['delivered'], 10_000)));
  });

  it("409 for a delivered delivery, pointing at replay; 404 for another tenant's, like an unknown id", async () => {
    stack.receiver.script('/done', [], { status: 200 });
    await stack.subscribe('/done', { eventTypes: ['done.test'], tenantId: 'acme', retryPolicy: FAR });
    const [id] = (await stack.publish('done.test', {}, undefined, { tenantId: 'acme' })).deliveryIds;
    await stack.waitForState(id!, ['delivered']);

    // acme's limit is spent (above): a refusal is decided before anything is counted.
    const conflict = await acme.post(`/v1/deliveries/${id}/retry`);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'conflict');
    assert.match(conflict.body.error.message, /is delivered: it waits for no retry; replay it instead/);

    for (const res of [
      await globex.post(`/v1/deliveries/${id}/retry`),
      await globex.post('/v1/deliveries/dlv_unknown0000000000000000/retry'),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await stack.delivery(id!)).attemptLog.length, 1, 'nothing was sent');
  });

  it('the retry message it overtook arrives at its old time and sends nothing', async () => {
    stack.receiver.script('/soon', [{ status: 503 }], { status: 200 });
    await stack.subscribe('/soon', { eventTypes: ['soon.test'], tenantId: 'acme', retryPolicy: SOON });
    const [id] = await failedDeliveries('/soon', 1);
    const oldDueMs = Date.parse((await stack.delivery(id!)).nextAttemptAt);
    const since = stack.receiver.requests.length;

    assert.equal((await stack.api.post(`/v1/deliveries/${id}/retry`)).status, 202);
    await stack.waitForState(id!, ['delivered'], 10_000);
    await new Promise((r) => setTimeout(r, Math.max(0, oldDueMs - Date.now()) + 4_000));

    assert.equal(stack.receiver.requests.slice(since).filter((r) => r.path === '/soon').length, 1, 'one POST, not two');
    assert.equal((await stack.delivery(id!)).attemptLog.length, 2);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, type Principal } from '#app/access.ts';
import { RateLimitedError } from '#app/errors.ts';
import { pauseSubscription, resumeSubscription } from '#app/subscriptions/subscriptions.ts';
import { STATE } from '#domain/states.ts';
import type { Delivery } from '#domain/types.ts';
import { aDelivery, aSubscription, fakeDeps, InMemoryDeliveryStore } from '#test/fakes.ts';
import { InMemoryRateLimiter } from '#test/memory-stores.ts';

const ACME: Principal = { role: 'tenant', tenantId: 'acme', keyId: 'key_acme' };
const LIMIT = { limit: 3, windowSeconds: 3600 };
const NOW = '2024-05-01T12:00:00.000Z';
const at = (s: number) => new Date(Date.parse(NOW) + s * 1000).toISOString();

/** Counts how many deliveries a listing ever hands out in one call, and how many calls it took. */
class CountingDeliveryStore extends InMemoryDeliveryStore {
  largestPage = 0;
  pages = 0;
  override async listBySubscription(request: Parameters<InMemoryDeliveryStore['listBySubscription']>[0]) {
    const page = await super.listBySubscription(request);
    this.pages++;
    this.largestPage = Math.max(this.largestPage, page.items.length);
    return page;
  }
}

function depsWith(state: 'active' | 'paused', pending: number) {
  const deliveries = new CountingDeliveryStore();
  const deps = { ...fakeDeps({ deliveries }), rateLimiter: new InMemoryRateLimiter(), customerPauseLimit: LIMIT };
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', tenantId: 'acme', state }));
  for (let i = 0; i < pending; i++) {
    // Waiting out a 600 s backoff: a resume of an active subscription must not pull it forward.
    deliveries.put(
      aDelivery({
        id: `dlv_${String(i).padStart(4, '0')}`,
        tenantId: 'acme',
        attempts: 1,
        nextAttemptAt: at(600),
        createdAt: at(-i),
      }),
    );
  }
  return { deps, deliveries };
}

describe('resume', () => {
  it('of an active subscription changes nothing: drained 0, no delivery pulled forward, nothing enqueued', async () => {
    const { deps, deliveries } = depsWith('active', 5);
    const before: Delivery[] = [...deliveries.items.values()].map((d) => structuredClone(d));

    for (let i = 0; i < 3; i++) {
      const { subscription, drained } = await resumeSubscription(deps, ADMIN, 'sub_1');
      assert.equal(drained, 0);
      assert.equal(subscription.state, 'active');
    }

    assert.deepEqual([...deliveries.items.values()], before);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('of a paused subscription drains the backlog in pages, enqueuing page by page, about 50 a second', async () => {
    const { deps, deliveries } = depsWith('paused', 250);

    const { subscription, drained } = await resumeSubscription(deps, ADMIN, 'sub_1');

    assert.equal(subscription.state, 'active');
    assert.equal(drained, 250);
    assert.ok(deliveries.largestPage <= 100, `a page of ${deliveries.largestPage}`);
    assert.ok(deps.queue.enqueued.length >= 3, `enqueued in ${deps.queue.enqueued.length} batches`);
    assert.ok(deps.queue.enqueued.every((batch) => batch.length <= 100));
    const delays = deps.queue.messages().map((m) => m.delaySeconds ?? 0);
    assert.equal(new Set(deps.queue.messages().map((m) => m.deliveryId)).size, 250, 'each pending delivery once');
    for (let second = 0; second <= Math.max(...delays); second++) {
      assert.ok(delays.filter((d) => d === second).length <= 50, `second ${second} holds more than 50`);
    }
    assert.ok(Math.max(...delays) >= 4, 'spread over the drain window');
    for (const d of deliveries.items.values()) assert.equal(d.state, STATE.pending);
  });

  it('spreads a backlog bigger than 5 minutes at 50 a second evenly over the 5-minute window', async () => {
    const { deps } = depsWith('paused', 20_000);

    await resumeSubscription(deps, ADMIN, 'sub_1');

    const delays = deps.queue.messages().map((m) => m.delaySeconds ?? 0);
    assert.equal(delays.length, 20_000);
    assert.ok(
      delays.every((d) => d >= 0 && d < 300),
      'within the 5-minute window',
    );
    const perSecond = Array.from({ length: 300 }, (_, s) => delays.filter((d) => d === s).length);
    assert.ok(
      Math.max(...perSecond) - Math.min(...perSecond) <= 50,
      `uneven: ${Math.min(...perSecond)}..${Math.max(...perSecond)} a second`,
    );
  });
});

describe('pause and resume by a tenant key', () => {
  it(`are limited to ${LIMIT.limit} per window per subscription (429 with Retry-After, nothing changed); the admin key is not`, async () => {
    const { deps } = depsWith('active', 0);

    await pauseSubscription(deps, ACME, 'sub_1');
    await resumeSubscription(deps, ACME, 'sub_1');
    await pauseSubscription(deps, ACME, 'sub_1');
    await assert.rejects(
      resumeSubscription(deps, ACME, 'sub_1'),
      (e: unknown) => e instanceof RateLimitedError && e.retryAfterSeconds === 3600 && /sub_1/.test(e.message),
    );
    await assert.rejects(pauseSubscription(deps, ACME, 'sub_1'), RateLimitedError);
    assert.equal(deps.subscriptions.items.get('sub_1')!.state, 'paused', 'the refused resume changed nothing');

    deps.clock.advance(3600_000);
    assert.equal(
      (await resumeSubscription(deps, ACME, 'sub_1')).subscription.state,
      'active',
      'a new window allows it again',
    );
    for (let i = 0; i < 10; i++) await pauseSubscription(deps, ADMIN, 'sub_1');
    assert.equal(deps.rateLimiter.taken.length, 6, 'only the tenant calls counted');
    assert.ok(
      deps.rateLimiter.taken.every((k) => k.endsWith(':sub_1')),
      'counted per subscription',
    );
  });
});

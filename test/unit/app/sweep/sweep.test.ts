import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sweep } from '#app/sweep/sweep.ts';
import { expectationOf, type Delivery } from '#domain/types.ts';
import { aDelivery, aSubscription, fakeDeps, InMemoryDeliveryStore } from '#test/fakes.ts';

// The fake clock starts at 2024-05-01T12:00:00Z; the sweep looks at what is more than 120 s overdue.
const NOW = '2024-05-01T12:00:00.000Z';
const GRACE = 120;
const at = (secondsFromNow: number) => new Date(Date.parse(NOW) + secondsFromNow * 1000).toISOString();

function depsWith(...deliveries: Delivery[]) {
  const deps = fakeDeps();
  for (const d of deliveries) deps.deliveries.put(d);
  return deps;
}

describe('sweep', () => {
  it('releases an in-flight delivery whose lease ran out and sends it again, due now', async () => {
    const deps = depsWith(
      aDelivery({
        id: 'dlv_stuck',
        subscriptionId: 'sub_1',
        state: 'in_flight',
        attempts: 2,
        attemptSeq: 5,
        nextAttemptAt: at(-600),
        leaseUntil: at(-540),
      }),
    );

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 1,
      expired: 0,
      requeued: 0,
      released: 1,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    const after = deps.deliveries.items.get('dlv_stuck')!;
    assert.equal(after.state, 'pending');
    assert.equal(after.nextAttemptAt, NOW);
    assert.equal(after.attemptSeq, 5);
    assert.equal(after.leaseUntil, undefined);
    assert.match(after.lastError!, /^released/);
    assert.deepEqual(deps.queue.messages(), [
      { kind: 'due', deliveryId: 'dlv_stuck', subscriptionId: 'sub_1', attemptSeq: 5 },
    ]);
  });

  it('expires a pending delivery past its deadline, dead-letters it and does not send it', async () => {
    const deps = depsWith(
      aDelivery({
        id: 'dlv_late',
        state: 'pending',
        attempts: 7,
        nextAttemptAt: at(-3600),
        giveUpAt: at(-60),
        lastError: 'HTTP 503',
      }),
    );

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 1,
      expired: 1,
      requeued: 0,
      released: 0,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    const after = deps.deliveries.items.get('dlv_late')!;
    assert.equal(after.state, 'expired');
    assert.equal(after.updatedAt, NOW);
    assert.equal(after.lastError, `retry deadline ${at(-60)} passed after 7 attempts; last error: HTTP 503`);
    assert.deepEqual(deps.queue.messages(), []);
    assert.deepEqual(deps.metrics.counts, { DeliveriesExpired: 1, DeadLettered: 1 });
  });

  it('counts an expiry toward the auto-pause streak, like a sender dead letter, and auto-pauses once the streak spans the period', async () => {
    const deps = depsWith(
      aDelivery({ id: 'dlv_a', subscriptionId: 'sub_dead', nextAttemptAt: at(-3600), giveUpAt: at(-60) }),
    );
    deps.subscriptions.items.set(
      'sub_dead',
      aSubscription({
        id: 'sub_dead',
        deadLetteringSince: at(-deps.autoPause.afterSeconds),
        lastDeadLetterAt: at(-600),
        deadLetterStreak: 40,
      }),
    );

    await sweep(deps, { graceSeconds: GRACE });

    const sub = deps.subscriptions.items.get('sub_dead')!;
    assert.equal(sub.deadLetterStreak, 41);
    assert.equal(sub.lastDeadLetterAt, NOW);
    assert.equal(sub.state, 'paused');
    assert.match(sub.stateReason!, /^auto-paused/);
  });

  it('starts a streak on a healthy subscription when the sweeper expires its delivery', async () => {
    const deps = depsWith(
      aDelivery({ id: 'dlv_b', subscriptionId: 'sub_ok', nextAttemptAt: at(-3600), giveUpAt: at(-60) }),
    );
    deps.subscriptions.items.set('sub_ok', aSubscription({ id: 'sub_ok' }));

    await sweep(deps, { graceSeconds: GRACE });

    const sub = deps.subscriptions.items.get('sub_ok')!;
    assert.deepEqual([sub.state, sub.deadLetteringSince, sub.deadLetterStreak], ['active', NOW, 1]);
  });

  it('expires a delivery whose deadline is exactly now', async () => {
    const deps = depsWith(aDelivery({ id: 'dlv_edge', nextAttemptAt: at(-600), giveUpAt: NOW }));

    await sweep(deps, { graceSeconds: GRACE });

    assert.equal(deps.deliveries.items.get('dlv_edge')!.state, 'expired');
  });

  it('re-enqueues an overdue pending delivery (its message was lost), due now', async () => {
    const deps = depsWith(
      aDelivery({ id: 'dlv_lost', subscriptionId: 'sub_9', nextAttemptAt: at(-GRACE - 1), giveUpAt: at(3600) }),
    );

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 1,
      expired: 0,
      requeued: 1,
      released: 0,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    assert.equal(deps.deliveries.items.get('dlv_lost')!.state, 'pending');
    assert.equal(deps.deliveries.items.get('dlv_lost')!.nextAttemptAt, NOW);
    assert.deepEqual(deps.queue.messages(), [
      { kind: 'due', deliveryId: 'dlv_lost', subscriptionId: 'sub_9', attemptSeq: 0 },
    ]);
  });

  it('leaves alone a pending delivery that is due but within the grace period, and one not yet due', async () => {
    const recent = aDelivery({ id: 'dlv_recent', nextAttemptAt: at(-GRACE + 1), giveUpAt: at(3600) });
    const future = aDelivery({ id: 'dlv_future', nextAttemptAt: at(300), giveUpAt: at(3600) });
    const deps = depsWith(recent, future);

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 0,
      expired: 0,
      requeued: 0,
      released: 0,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    assert.deepEqual(deps.deliveries.items.get('dlv_recent'), recent);
    assert.deepEqual(deps.deliveries.items.get('dlv_future'), future);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('reads, and leaves to its message, a delivery listed by its minute but not yet past the grace', async () => {
    // A grace of 10 s: the cut-off is 11:59:50, within the minute both rows are listed by (11:59).
    const lost = aDelivery({ id: 'dlv_lost', nextAttemptAt: at(-20), giveUpAt: at(3600) });
    const onItsWay = aDelivery({ id: 'dlv_on_its_way', nextAttemptAt: at(-5), giveUpAt: at(3600) });
    const deps = depsWith(lost, onItsWay);

    const report = await sweep(deps, { graceSeconds: 10 });

    assert.deepEqual([report.examined, report.requeued], [2, 1]);
    assert.deepEqual(deps.deliveries.items.get('dlv_on_its_way'), onItsWay);
    assert.deepEqual(
      deps.queue.messages().map((m) => m.deliveryId),
      ['dlv_lost'],
    );
  });

  it('leaves alone an in-flight delivery whose lease has not run out', async () => {
    // Claimed when due 10 minutes ago (a slow attempt), lease good for another 30 s.
    const held = aDelivery({
      id: 'dlv_held',
      state: 'in_flight',
      attemptSeq: 1,
      nextAttemptAt: at(-600),
      leaseUntil: at(30),
    });
    const deps = depsWith(held);

    await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(deps.deliveries.items.get('dlv_held'), held);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('never touches delivered or dead-lettered deliveries, however old', async () => {
    const done = [
      aDelivery({ id: 'dlv_ok', state: 'delivered', nextAttemptAt: at(-86_400), giveUpAt: at(-3600) }),
      aDelivery({ id: 'dlv_failed', state: 'failed', nextAttemptAt: at(-86_400), giveUpAt: at(-3600) }),
      aDelivery({ id: 'dlv_expired', state: 'expired', nextAttemptAt: at(-86_400), giveUpAt: at(-3600) }),
    ];
    const deps = depsWith(...done);

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.equal(report.examined, 0);
    for (const d of done) assert.deepEqual(deps.deliveries.items.get(d.id), d);
    assert.deepEqual(deps.queue.messages(), []);
  });

  it('handles a mixed backlog in one run and enqueues once', async () => {
    const deps = depsWith(
      aDelivery({ id: 'dlv_stuck', state: 'in_flight', attemptSeq: 1, nextAttemptAt: at(-900), leaseUntil: at(-840) }),
      aDelivery({ id: 'dlv_late', nextAttemptAt: at(-900), giveUpAt: at(-1) }),
      aDelivery({ id: 'dlv_lost1', nextAttemptAt: at(-900), giveUpAt: at(60) }),
      aDelivery({ id: 'dlv_lost2', nextAttemptAt: at(-500), giveUpAt: at(60) }),
      aDelivery({ id: 'dlv_fine', nextAttemptAt: at(-10), giveUpAt: at(60) }),
    );

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 4,
      expired: 1,
      requeued: 2,
      released: 1,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    assert.equal(deps.queue.enqueued.length, 1);
    assert.deepEqual(
      deps.queue
        .messages()
        .map((m) => m.deliveryId)
        .sort(),
      ['dlv_lost1', 'dlv_lost2', 'dlv_stuck'],
    );
  });

  it('reads no more than `limit` deliveries a pass, oldest first', async () => {
    const deps = depsWith(
      aDelivery({ id: 'dlv_1', nextAttemptAt: at(-1000), giveUpAt: at(60) }),
      aDelivery({ id: 'dlv_2', nextAttemptAt: at(-900), giveUpAt: at(60) }),
      aDelivery({ id: 'dlv_3', nextAttemptAt: at(-800), giveUpAt: at(60) }),
    );
    const passes: string[][] = [];
    const listDue = deps.deliveries.listDue.bind(deps.deliveries);
    deps.deliveries.listDue = async (before, limit) => {
      const page = await listDue(before, limit);
      passes.push(page.map((d) => d.id));
      return page;
    };

    const report = await sweep(deps, { graceSeconds: GRACE, limit: 2 });

    assert.deepEqual(passes, [['dlv_1', 'dlv_2'], ['dlv_3']]);
    assert.equal(report.examined, 3);
    assert.deepEqual(
      deps.queue.messages().map((m) => m.deliveryId),
      ['dlv_1', 'dlv_2', 'dlv_3'],
    );
  });

  it('changes nothing a sender changed between the listing and the write', async () => {
    // A sender records an attempt of each delivery right after the sweep has read it.
    const racing = new (class extends InMemoryDeliveryStore {
      override async getMany(ids: readonly string[]) {
        const read = await super.getMany(ids);
        for (const d of read)
          await this.write(
            'retry',
            { ...d, attempts: d.attempts + 1, attemptSeq: d.attemptSeq + 1, nextAttemptAt: at(60), updatedAt: NOW },
            expectationOf(d),
          );
        return read;
      }
    })();
    racing.put(aDelivery({ id: 'dlv_lost', nextAttemptAt: at(-900), giveUpAt: at(60) }));
    racing.put(aDelivery({ id: 'dlv_late', nextAttemptAt: at(-900), giveUpAt: at(-1) }));
    const deps = fakeDeps({ deliveries: racing });

    const report = await sweep(deps, { graceSeconds: GRACE });

    assert.deepEqual(report, {
      examined: 2,
      expired: 0,
      requeued: 0,
      released: 0,
      finishedPublishes: 0,
      finishedDeliveries: 0,
      routesRepaired: 0,
    });
    assert.deepEqual(
      [racing.items.get('dlv_lost')!.attemptSeq, racing.items.get('dlv_late')!.state],
      [1, 'pending'],
      'as the sender left them',
    );
    assert.deepEqual(deps.queue.messages(), []);
    assert.deepEqual(deps.metrics.counts, {});
  });
});

describe('sweep: passes until caught up', () => {
  const lost = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      aDelivery({ id: `dlv_lost_${i}`, subscriptionId: 'sub_1', state: 'pending', nextAttemptAt: at(-600) }),
    );

  it('works off more than one pass in one run: 25 lost messages, 10 a pass, all sent again', async () => {
    const deps = depsWith(...lost(25));
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));

    const report = await sweep(deps, { graceSeconds: GRACE, limit: 10 });

    assert.equal(report.requeued, 25);
    assert.equal(report.examined, 25);
    assert.deepEqual(new Set(deps.queue.messages().map((m) => m.deliveryId)).size, 25);
  });

  it('a publish check the table refuses does not stop the due deliveries from being swept; the run then fails', async () => {
    const deps = depsWith(...lost(3));
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
    deps.ingestManifests.watermarks = async () => {
      throw new Error('Throughput exceeds the current throughput limit for your table or index.');
    };

    await assert.rejects(sweep(deps, { graceSeconds: GRACE }), /Throughput exceeds/);
    assert.equal(deps.queue.messages().length, 3, 'the lost messages were sent again all the same');
  });

  it('stops starting passes once its budget has passed: the next run picks up the rest', async () => {
    const deps = depsWith(...lost(25));
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
    // Each pass's read takes 30 s of the clock: the second pass starts at 30 s, inside a 45 s budget; a third would start at 60 s.
    const listDue = deps.deliveries.listDue.bind(deps.deliveries);
    deps.deliveries.listDue = async (before, limit) => {
      deps.clock.advance(30_000);
      return listDue(before, limit);
    };

    const first = await sweep(deps, { graceSeconds: GRACE, limit: 10, budgetMs: 45_000 });
    assert.equal(first.requeued, 20, 'two passes: the second began at 30 s, inside the budget');

    const second = await sweep(deps, { graceSeconds: GRACE, limit: 10, budgetMs: 45_000 });
    assert.equal(second.requeued, 5);
  });

  it('does not go round again on a full pass that changed nothing', async () => {
    // Ten rows due, each moved on by someone else between the read and the write: nothing to do, one pass.
    const deps = depsWith(...lost(10));
    let reads = 0;
    const listDue = deps.deliveries.listDue.bind(deps.deliveries);
    deps.deliveries.listDue = async (before, limit) => (reads++, listDue(before, limit));
    deps.deliveries.write = async () => false;

    const report = await sweep(deps, { graceSeconds: GRACE, limit: 10 });

    assert.deepEqual([report.examined, report.requeued, reads], [10, 0, 1]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveNoticePolicy } from '#domain/notices.ts';
import type { Delivery, Subscription } from '#domain/types.ts';
import { METRICS } from '#config/topology.ts';
import type { Mailer, MailMessage, MailResult } from '#ports/mailer.ts';
import { MAX_NOTICE_TRIES, runNotifier, type NotifierDeps } from '#app/notices/notifier.ts';
import { aDelivery, aSubscription, fakeDeps, SEEDED_TTL } from '#test/fakes.ts';
import { InMemoryNoticeStore } from '#test/memory-notice-store.ts';
import { InMemoryReplayStore } from '#test/memory-stores.ts';

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

class RecordingMailer implements Mailer {
  readonly enabled = true;
  readonly sent: MailMessage[] = [];
  calls = 0;
  /** Fail this many sends first (Infinity: always). */
  failures = 0;
  async send(message: MailMessage): Promise<MailResult> {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw Object.assign(new Error('454 Throttling failure'), { name: 'ThrottlingException' });
    }
    this.sent.push(message);
    return { kind: 'sent' };
  }
}

/** A notifier over fakes: one subscription whose endpoint answers 503 since T0, with a 1 min / 10 min policy. */
function setup(options: { subscription?: Partial<Subscription>; supportEmail?: string; recovered?: 0 | 1 } = {}) {
  const base = fakeDeps();
  base.clock.nowMs = T0;
  const notices = new InMemoryNoticeStore();
  const mailer = new RecordingMailer();
  const replays = new InMemoryReplayStore();
  const deps: NotifierDeps = {
    ...base,
    replays,
    notices,
    mailer,
    noticePolicy: resolveNoticePolicy({
      firstAfterSeconds: 60,
      secondAfterSeconds: 600,
      beforeExpirySeconds: 300,
      lostAfterSeconds: 300,
      recovered: options.recovered ?? 1,
      leaseSeconds: 120,
    }),
    noticeSettings:
      options.supportEmail === undefined
        ? { supportEmail: 'help@producer.test' }
        : options.supportEmail
          ? { supportEmail: options.supportEmail }
          : {},
    consoleSettings: {},
  };
  void base.subscriptions.create(
    aSubscription({ id: 'sub_1', contactEmails: ['ann@customer.test'], ...options.subscription }),
  );
  const failing = (id: string, createdAt: number, over: Partial<Delivery> = {}): Delivery =>
    aDelivery({
      id,
      eventId: `evt_${id}`,
      subscriptionId: 'sub_1',
      state: 'pending',
      attempts: 1,
      attemptSeq: 1,
      lastStatus: 503,
      lastError: 'HTTP 503',
      createdAt: at(createdAt),
      updatedAt: at(createdAt + 1),
      giveUpAt: at(createdAt + 1200),
      firstAttempt: { seq: 1, attempt: 1, startedAt: at(createdAt), durationMs: 12, status: 503, responseSnippet: '' },
      ...over,
    });
  for (const [i, d] of [failing('dlv_a', 0), failing('dlv_b', 10)].entries()) {
    base.deliveries.put(d);
    base.events.items.set(d.eventId, {
      id: d.eventId,
      type: 'order.created',
      body: '{}',
      subscriptionIds: ['sub_1'],
      deliveryIds: [d.id],
      createdAt: at(i * 10),
    });
  }
  const runAt = async (seconds: number) => {
    base.clock.nowMs = T0 + seconds * 1000;
    return runNotifier(deps);
  };
  const kinds = () => mailer.sent.map((m) => m.headers['X-Hookline-Notice']!.split('#').pop());
  return { deps, base, notices, mailer, replays, failing, runAt, kinds };
}

describe('runNotifier()', () => {
  it('a failing endpoint: the streak starts at the first failed attempt, each notice goes once at its time', async () => {
    const { runAt, kinds, notices, mailer } = setup();
    await runAt(30);
    assert.deepEqual(
      [...notices.streaks.values()].map((s) => [s.since, s.oldestLive?.deliveryId]),
      [[at(0), 'dlv_a']],
      'the first failed attempt; the delivery that expires first',
    );
    assert.deepEqual(kinds(), []);
    await runAt(61);
    await runAt(62);
    assert.deepEqual(kinds(), ['failing']);
    assert.deepEqual([...mailer.sent[0]!.to], ['ann@customer.test']);
    assert.deepEqual([...mailer.sent[0]!.bcc], ['help@producer.test']);
    await runAt(601);
    await runAt(901);
    assert.deepEqual(
      kinds(),
      ['failing', 'still_failing', 'expiring'],
      "expiring 300 s before dlv_a's deadline at 1200 s",
    );
  });

  it('nobody to tell (no contact, no support address, no operational subscription): nothing is decided, nothing written', async () => {
    const { runAt, notices, mailer } = setup({ subscription: { contactEmails: [] }, supportEmail: '' });
    for (const s of [30, 61, 601, 901]) await runAt(s);
    assert.deepEqual(notices.writes, []);
    assert.equal(mailer.calls, 0);
  });

  it('looks at each subscription a bounded number of times a run, not once per other subscription', async () => {
    // Who may be told was a filter of every subscription, asked per subscription and notice kind:
    // 100,000 subscriptions took 5 × 10¹⁰ checks a run. Counted here as reads of the list.
    const { deps, runAt } = setup({ subscription: { contactEmails: [] }, supportEmail: '' });
    const many = Array.from({ length: 1_000 }, (_, i) => aSubscription({ id: `sub_n${i}` }));
    let reads = 0;
    const counted = new Proxy(many, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    deps.subscriptions.all = async () => counted;
    const report = await runAt(61);
    assert.equal(report.examined, 1_000);
    assert.ok(reads <= 20 * many.length, `${reads} reads of 1,000 subscriptions`);
  });

  it('a send that fails stays decided and is tried again after its lease; every failure is counted; sent once', async () => {
    const { runAt, kinds, mailer, notices, base } = setup();
    mailer.failures = 2;
    await runAt(30);
    const first = await runAt(61);
    assert.deepEqual(
      first.notices.map((n) => `${n.kind}:${n.via}:${n.outcome}`),
      ['failing:decided:send_failed'],
    );
    assert.match(first.notices[0]!.error!, /ThrottlingException: 454 Throttling failure/);
    assert.equal((await runAt(100)).notices.length, 0, 'not again before its retry time (the lease, 120 s)');
    assert.deepEqual(
      (await runAt(182)).notices.map((n) => `${n.via}:${n.outcome}`),
      ['taken_over:send_failed'],
    );
    assert.equal((await runAt(300)).notices.length, 0, 'the next wait doubles (240 s)');
    assert.deepEqual(
      (await runAt(423)).notices.map((n) => `${n.via}:${n.outcome}`),
      ['taken_over:sent'],
    );
    assert.deepEqual(kinds(), ['failing']);
    assert.equal(base.metrics.counts[METRICS.noticeSendFailures], 2);
    assert.equal(base.metrics.counts[METRICS.noticesSent], 1);
    const [record] = await notices.noticesOf('sub_1', `${at(0)}#failing`);
    assert.deepEqual([record!.state, record!.tries, record!.lastError], ['sent', 3, undefined]);
  });

  it(`gives a notice up after ${MAX_NOTICE_TRIES} tries (and stops trying)`, async () => {
    const { runAt, mailer, notices } = setup({ subscription: {} });
    mailer.failures = Infinity;
    await runAt(30);
    for (let s = 61; s < 61 + 40 * 3600; s += 3600) await runAt(s);
    // The first and the second notice, each tried MAX_NOTICE_TRIES times, then left failed.
    assert.equal(mailer.calls, 2 * MAX_NOTICE_TRIES);
    const records = await notices.noticesOf('sub_1', `${at(0)}#`);
    assert.deepEqual(
      records.map((n) => [n.kind, n.state, n.tries]),
      [
        ['failing', 'abandoned', MAX_NOTICE_TRIES],
        ['still_failing', 'abandoned', MAX_NOTICE_TRIES],
      ],
    );
  });

  it('a 2xx after the streak began: "recovered" (someone was told), the streak ends, the next failure is a new streak', async () => {
    const { runAt, kinds, notices, base, failing } = setup();
    await runAt(30);
    await runAt(61);
    base.deliveries.put(
      failing('dlv_b', 10, {
        state: 'delivered',
        attempts: 2,
        attemptSeq: 2,
        lastStatus: 200,
        lastError: undefined,
        updatedAt: at(70),
      }),
    );
    await base.attempts.put(
      {
        deliveryId: 'dlv_b',
        seq: 2,
        attempt: 2,
        startedAt: at(69),
        durationMs: 20,
        status: 200,
      },
      SEEDED_TTL,
    );
    await runAt(75);
    assert.deepEqual(kinds(), ['failing', 'recovered']);
    assert.equal(notices.streaks.size, 0);
    const recovered = JSON.parse(JSON.stringify(notices.notices.get(`sub_1\u0000${at(0)}#recovered`)));
    assert.deepEqual(recovered.facts, { recoveredAt: at(69), deliveryId: 'dlv_b' });
    // It fails again: a new streak from its own first failed attempt.
    base.deliveries.put(failing('dlv_c', 80));
    await runAt(90);
    assert.deepEqual(
      [...notices.streaks.values()].map((s) => s.since),
      [at(80)],
    );
  });

  it('no "recovered" for a streak nobody was told about, or with the setting off', async () => {
    for (const [recovered, minutes] of [
      [1, 30],
      [0, 61],
    ] as const) {
      const { runAt, kinds, notices, base, failing } = setup({ recovered });
      await runAt(30);
      await runAt(minutes);
      base.deliveries.put(
        failing('dlv_b', 10, {
          state: 'delivered',
          attempts: 2,
          attemptSeq: 2,
          lastStatus: 200,
          updatedAt: at(minutes + 5),
        }),
      );
      await base.attempts.put(
        {
          deliveryId: 'dlv_b',
          seq: 2,
          attempt: 2,
          startedAt: at(minutes + 4),
          durationMs: 20,
          status: 200,
        },
        SEEDED_TTL,
      );
      await runAt(minutes + 10);
      assert.ok(!kinds().includes('recovered'), `recovered=${recovered}`);
      assert.equal(notices.streaks.size, 0, 'the streak ended all the same');
    }
  });

  it('auto-paused: one notice with the reason; a pause someone asked for gets none', async () => {
    const reason =
      'auto-paused: every delivery since 2024-05-01T00:00:00.000Z was dead-lettered (40 in a row over 24 h, threshold 24 h); fix the endpoint, then resume to drain the backlog';
    const { runAt, kinds, mailer } = setup({
      subscription: { state: 'paused', stateReason: reason, stateChangedAt: at(5) },
    });
    await runAt(30);
    await runAt(31);
    assert.deepEqual(kinds(), ['auto_paused']);
    assert.ok(mailer.sent[0]!.text.includes(reason));
    const manual = setup({
      subscription: { state: 'paused', stateReason: 'paused by request', stateChangedAt: at(5) },
    });
    await manual.runAt(30);
    assert.deepEqual(manual.kinds(), []);
  });

  it("operational webhooks: published once per notice to producer-owned subscriptions of hookline.* types, never to a tenant's", async () => {
    const { runAt, base } = setup();
    await base.subscriptions.create(
      aSubscription({ id: 'sub_ops', eventTypes: ['hookline.subscription.*', 'hookline.replay.*'] }),
    );
    await base.subscriptions.create(
      aSubscription({ id: 'sub_tenant_ops', tenantId: 'acme', eventTypes: ['hookline.subscription.*'] }),
    );
    await base.subscriptions.create(aSubscription({ id: 'sub_all', eventTypes: ['*'] }));
    await runAt(30);
    await runAt(61);
    await runAt(62);
    const operational = [...base.events.items.values()].filter((e) => e.type.startsWith('hookline.'));
    assert.deepEqual(
      operational.map((e) => [e.type, e.subscriptionIds]),
      [['hookline.subscription.failing', ['sub_ops']]],
    );
    const body = JSON.parse(operational[0]!.body);
    assert.equal(body.data.kind, 'failing');
    assert.equal(body.data.subscription.id, 'sub_1');
    assert.deepEqual(
      body.data.recentAttempts.map((a: { status: number }) => a.status),
      [503, 503],
    );
  });

  it('replay.completed goes to operational subscribers only (no email), once per replay', async () => {
    const { runAt, base, replays, mailer } = setup({ subscription: { state: 'active' } });
    await base.subscriptions.create(aSubscription({ id: 'sub_ops', eventTypes: ['hookline.replay.*'] }));
    await replays.create({
      id: 'rpl_1',
      operator: 'alice@laptop',
      principal: 'admin',
      criteria: { states: ['expired'], createdFrom: at(-3600), createdTo: at(0) },
      dryRun: false,
      windowSeconds: 60,
      status: 'completed',
      matched: 3,
      replayed: 3,
      skipped: 0,
      startedAt: at(1),
      updatedAt: at(2),
      finishedAt: at(2),
    });
    await runAt(10);
    await runAt(11);
    const events = [...base.events.items.values()].filter((e) => e.type === 'hookline.replay.completed');
    assert.equal(events.length, 1);
    assert.equal(JSON.parse(events[0]!.body).data.replay.replayed, 3);
    assert.ok(mailer.sent.every((m) => !m.headers['X-Hookline-Notice']!.endsWith('replay_completed')));
  });

  it('the bookkeeping of a whole streak is a handful of small writes, however many deliveries it spans', async () => {
    const { runAt, notices, base, failing } = setup();
    for (let i = 0; i < 200; i++) base.deliveries.put(failing(`dlv_${String(i).padStart(3, '0')}`, 20 + i / 25));
    // The streak is first seen at 30 s, in the newest 50 deliveries (created from 26 s on): its notices follow from there.
    for (const s of [30, 90, 630, 930]) await runAt(s);
    for (const d of [...base.deliveries.items.values()])
      base.deliveries.put({ ...d, state: 'expired', updatedAt: at(1300) });
    await runAt(1301);
    await runAt(1302);
    // startStreak, then decide + markSent for failing, still_failing, expiring and lost: 9 writes for 202 deliveries.
    assert.deepEqual(notices.writes.sort(), [
      'decide',
      'decide',
      'decide',
      'decide',
      'markSent',
      'markSent',
      'markSent',
      'markSent',
      'startStreak',
    ]);
  });
});

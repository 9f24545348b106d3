import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listCaughtMail, type CaughtMail } from '#adapters/file-mail-catcher.ts';
import { OPERATIONAL_EVENT_SCHEMAS } from '#app/notices/operational-events.ts';
import { FAST_RETRY_POLICY, startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

/**
 * Failure notices end to end on the real local runtime, with every period in seconds: a
 * subscription failing for 2 s gets the first notice, at 4 s the second, 3 s before its oldest
 * delivery's 10 s deadline the "expiring" one, and once everything expired the lost summary.
 * Emails land in the mail catcher; operational webhooks go through the pipeline to a
 * producer-owned subscription and are verified with `standardwebhooks` (test/support/receiver.ts).
 */
const SUPPORT = 'support@producer.test';
const NOTICE_ENV = {
  HOOKLINE_NOTICE_FIRST_SECONDS: '2',
  HOOKLINE_NOTICE_SECOND_SECONDS: '4',
  HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS: '3',
  HOOKLINE_NOTICE_LOST_AFTER_SECONDS: '60',
  HOOKLINE_NOTICE_LEASE_SECONDS: '2',
  HOOKLINE_NOTICE_SUPPORT_EMAIL: SUPPORT,
  // Two dead letters 2 s apart auto-pause a subscription (the other subscriptions here never dead-letter that far apart).
  HOOKLINE_AUTO_PAUSE_SECONDS: '2',
};
/** Retries every second until a 10 s deadline: the whole streak fits in a test. */
const TEN_SECONDS = { ...FAST_RETRY_POLICY, deadlineSeconds: 10 };

interface OpsEvent {
  readonly webhookId: string;
  readonly type: string;
  readonly data: any;
}

describe('failure notices and operational webhooks', () => {
  let stack: LocalStack;
  let ticker: NodeJS.Timeout | undefined;
  const runNotifier = () => stack.runtime.runSchedule('notifier');
  const startTicking = () => (ticker = setInterval(() => void runNotifier(), 250));
  const stopTicking = async () => {
    clearInterval(ticker);
    await runNotifier();
  };

  before(async () => {
    // The schedule itself is slowed down: the test drives the notifier, so it can also run two at once.
    stack = await startLocalStack({ env: NOTICE_ENV, scheduleIntervalMs: { sweeper: 3_600_000, notifier: 3_600_000 } });
    stack.receiver.script('/ops', [], { status: 200 });
    await stack.subscribe('/ops', {
      eventTypes: ['hookline.subscription.*', 'hookline.replay.*'],
      retryPolicy: FAST_RETRY_POLICY,
    });
    startTicking();
  });
  after(async () => {
    clearInterval(ticker);
    await stack.stop();
  });

  const mailFor = (subscriptionId: string): CaughtMail[] =>
    listCaughtMail(stack.runtime.mailDir).filter((m) => m.headers['X-Hookline-Subscription'] === subscriptionId);
  const opsEvents = (subscriptionId: string): OpsEvent[] =>
    stack.receiver
      .distinct('/ops')
      .map((r) => {
        assert.ok(r.verified, 'every operational webhook verifies with standardwebhooks');
        const body = JSON.parse(r.body) as { type: string; data: any };
        assert.equal(r.webhookId, JSON.parse(r.body).id);
        return { webhookId: r.webhookId, type: body.type, data: body.data };
      })
      .filter((e) => (e.data.subscription?.id ?? e.data.replay?.criteria?.subscriptionId) === subscriptionId);
  const kindOf = (m: CaughtMail) => m.headers['X-Hookline-Notice']!.split('#').pop();

  it('an endpoint that stays down: the 1 h, 24 h and pre-expiry notices, then a summary listing exactly the lost events', {
    timeout: 60_000,
  }, async () => {
    stack.receiver.script('/down', [], { status: 503, body: 'maintenance' });
    const sub = await stack.subscribe('/down', {
      retryPolicy: TEN_SECONDS,
      contactEmails: ['alice@customer.test', 'ALICE@customer.test', 'bob@customer.test'],
    });
    assert.deepEqual(
      (await stack.api.get(`/v1/subscriptions/${sub.id}`)).body.contactEmails,
      ['alice@customer.test', 'bob@customer.test'],
      'each address once',
    );
    const eventIds: string[] = [];
    for (let i = 0; i < 6; i++) eventIds.push((await stack.publish('order.created', { n: i }, `down-${i}`)).eventId);

    const failing = await waitFor(
      'the first notice',
      () => mailFor(sub.id).find((m) => kindOf(m) === 'failing'),
      15_000,
    );
    // What it says, with real figures: the URL, how long, the statuses, how long retries go on, the last 5 events.
    assert.deepEqual([...failing.to], ['alice@customer.test', 'bob@customer.test']);
    assert.deepEqual([...failing.bcc], [SUPPORT], 'the support address is told too');
    assert.match(failing.subject, /Failing: your webhook endpoint http:\/\/127\.0\.0\.1:\d+\/down/);
    assert.match(
      failing.text,
      new RegExp(`Your webhook endpoint ${stack.receiver.url}/down has been failing for [23] seconds \\(since `),
    );
    assert.match(failing.text, /The most recent attempts returned 503( \(\d times\))?\./);
    assert.match(failing.text, /We will continue retrying for \d+ seconds \(until /);
    assert.match(failing.text, /Last 5 events:/);
    for (const id of eventIds.slice(1)) assert.ok(failing.text.includes(`${id} order.created`), `lists ${id}`);
    assert.ok(!failing.text.includes(`${eventIds[0]} `), 'only the newest 5');
    assert.ok(
      failing.html.includes(`${stack.receiver.url}/down`) && failing.html.includes('<li>'),
      'an HTML part with the same content',
    );
    assert.ok(
      failing.text.includes(`/v1/dead-letters?subscriptionId=${sub.id}`),
      'the API path of its dead letters (no dashboard configured)',
    );

    const second = await waitFor(
      'the 24 h notice',
      () => mailFor(sub.id).find((m) => kindOf(m) === 'still_failing'),
      15_000,
    );
    assert.match(second.subject, /^Still failing/);
    const expiring = await waitFor(
      'the pre-expiry notice',
      () => mailFor(sub.id).find((m) => kindOf(m) === 'expiring'),
      15_000,
    );
    assert.match(
      expiring.text,
      new RegExp(`the oldest event still being retried \\(${eventIds[0]}\\) reaches its retry deadline`),
    );
    const lost = await waitFor('the lost summary', () => mailFor(sub.id).find((m) => kindOf(m) === 'lost'), 30_000);
    assert.match(lost.subject, /^6 events were not delivered/);
    assert.match(lost.text, /6 deliveries expired \(retried until the deadline\) and 0 failed/);
    for (const id of eventIds) assert.ok(lost.text.includes(`${id} order.created: expired`), `the summary lists ${id}`);

    // The same notices as signed operational webhooks, each once, with the documented payloads.
    const events = await waitFor(
      'the operational webhooks',
      () => {
        const e = opsEvents(sub.id);
        return e.length >= 4 ? e : undefined;
      },
      15_000,
    );
    assert.deepEqual(
      events.map((e) => `${e.type}/${e.data.kind}`),
      [
        'hookline.subscription.failing/failing',
        'hookline.subscription.failing/still_failing',
        'hookline.subscription.expiring/expiring',
        'hookline.subscription.lost_summary/lost',
      ],
    );
    for (const e of events) OPERATIONAL_EVENT_SCHEMAS[e.type as keyof typeof OPERATIONAL_EVENT_SCHEMAS].parse(e.data);
    const summary = events[3]!.data;
    assert.deepEqual(
      summary.events.map((e: { eventId: string }) => e.eventId).sort(),
      [...eventIds].sort(),
      'exactly the lost event ids',
    );
    assert.deepEqual([summary.expired, summary.failed, summary.truncated], [6, 0, false]);
    assert.equal(events[0]!.data.recentAttempts[0].status, 503);
    // A catch-all subscription never receives the operational events (they describe other subscriptions).
    assert.ok(stack.receiver.on('/down').every((r) => !JSON.parse(r.body).type.startsWith('hookline.')));

    // Nothing more for this streak, however long it runs: each notice went exactly once.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(mailFor(sub.id).map(kindOf).sort(), ['expiring', 'failing', 'lost', 'still_failing']);
    assert.equal(opsEvents(sub.id).length, 4);
  });

  it('recovery mid-streak: a "recovered" notice, and the next failure starts a fresh streak', {
    timeout: 60_000,
  }, async () => {
    stack.receiver.script('/flaky', [], { status: 500 });
    const sub = await stack.subscribe('/flaky', {
      retryPolicy: { ...FAST_RETRY_POLICY, deadlineSeconds: 120 },
      contactEmails: ['carol@customer.test'],
    });
    await stack.publish('order.created', { n: 1 }, 'flaky-1');
    const first = await waitFor('the first notice', () => mailFor(sub.id).find((m) => kindOf(m) === 'failing'), 15_000);
    stack.receiver.script('/flaky', [], { status: 200 });
    const recovered = await waitFor(
      'the recovered notice',
      () => mailFor(sub.id).find((m) => kindOf(m) === 'recovered'),
      15_000,
    );
    assert.match(recovered.subject, /^Recovered: your webhook endpoint/);
    assert.match(recovered.text, /answered 2xx again at .+, after failing for \d+ seconds/);
    const recoveredEvent = await waitFor('its webhook', () =>
      opsEvents(sub.id).find((e) => e.data.kind === 'recovered'),
    );
    assert.equal(recoveredEvent.type, 'hookline.subscription.recovered');
    // Each webhook travels the pipeline on its own, so the failing one is waited for too, not assumed to be in.
    const failingEvent = await waitFor('the failing webhook', () =>
      opsEvents(sub.id).find((e) => e.data.kind === 'failing'),
    );
    assert.equal(recoveredEvent.data.failingSince, failingEvent.data.failingSince);

    // It fails again: a new streak, told from the start (a new first notice with a later failingSince).
    stack.receiver.script('/flaky', [], { status: 502 });
    await stack.publish('order.created', { n: 2 }, 'flaky-2');
    const again = await waitFor(
      'a fresh first notice',
      () =>
        mailFor(sub.id)
          .filter((m) => kindOf(m) === 'failing')
          .find((m) => m.id !== first.id),
      15_000,
    );
    assert.notEqual(again.headers['X-Hookline-Notice'], first.headers['X-Hookline-Notice']);
    assert.match(again.text, /The most recent attempts returned 502/);
    // The email and the webhook go out from the same decision but arrive separately: wait for the second webhook.
    const streaks = await waitFor(
      'the second failing webhook',
      () => {
        const since = opsEvents(sub.id)
          .filter((e) => e.data.kind === 'failing')
          .map((e) => e.data.failingSince);
        return since.length >= 2 ? since : undefined;
      },
      15_000,
    );
    assert.equal(streaks.length, 2);
    assert.ok(streaks[1] > recoveredEvent.data.recoveredAt, 'the second streak began after the recovery');
  });

  it('two evaluations at once decide and send each notice once', { timeout: 60_000 }, async () => {
    await stopTicking();
    try {
      stack.receiver.script('/race', [], { status: 503 });
      const sub = await stack.subscribe('/race', {
        retryPolicy: { ...FAST_RETRY_POLICY, deadlineSeconds: 120 },
        contactEmails: ['dave@customer.test'],
      });
      await stack.publish('order.created', { n: 1 }, 'race-1');
      // The streak starts (both evaluations agree on it), then both find the first notice due at the same moment.
      await waitFor('a failed attempt', () => stack.receiver.on('/race').length > 0);
      await Promise.all([stack.runtime.invoke('notifier', {}), stack.runtime.invoke('notifier', {})]);
      await new Promise((r) => setTimeout(r, 2200));
      const reports = (await Promise.all([
        stack.runtime.invoke('notifier', {}),
        stack.runtime.invoke('notifier', {}),
        stack.runtime.invoke('notifier', {}),
      ])) as { notices: { subject: string; outcome: string; via: string }[] }[];
      // Not only the channels' own dedupe (the catcher's message id, the event id): the decision itself is made once.
      const held = reports.flatMap((r) => r.notices).filter((n) => n.subject === sub.id);
      assert.deepEqual(
        held.map((n) => `${n.via}:${n.outcome}`),
        ['decided:sent'],
        'one of the three decided and sent it',
      );
      await waitFor('its webhook', () => opsEvents(sub.id).length > 0);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(mailFor(sub.id).map(kindOf), ['failing'], 'one email');
      assert.deepEqual(
        opsEvents(sub.id).map((e) => e.data.kind),
        ['failing'],
        'one webhook',
      );
    } finally {
      startTicking();
    }
  });

  it('auto-paused and disabled subscriptions are told once, with the reason', { timeout: 60_000 }, async () => {
    stack.receiver.script('/gone', [{ status: 410 }], { status: 410 });
    const sub = await stack.subscribe('/gone', { contactEmails: ['erin@customer.test'] });
    await stack.publish('order.created', { n: 1 }, 'gone-1');
    const disabled = await waitFor(
      'the disabled notice',
      () => mailFor(sub.id).find((m) => kindOf(m) === 'disabled'),
      15_000,
    );
    assert.match(disabled.text, /was disabled at .+: endpoint answered 410 Gone for delivery dlv_/);
    const event = await waitFor('its webhook', () =>
      opsEvents(sub.id).find((e) => e.type === 'hookline.subscription.disabled'),
    );
    assert.match(event.data.reason, /410 Gone/);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(mailFor(sub.id).filter((m) => kindOf(m) === 'disabled').length, 1);

    // One try each, refused: every event a dead letter at once; the second, 2 s after the first, auto-pauses.
    stack.receiver.script('/refusing', [], { status: 500 });
    const paused = await stack.subscribe('/refusing', {
      retryPolicy: { ...FAST_RETRY_POLICY, maxAttempts: 1 },
      contactEmails: ['gina@customer.test'],
    });
    await stack.publish('order.created', { n: 1 }, 'refused-1');
    await waitFor(
      'the first dead letter',
      async () => (await stack.api.get(`/v1/subscriptions/${paused.id}`)).body.deadLetterStreak === 1,
    );
    await new Promise((r) => setTimeout(r, 2100));
    await stack.publish('order.created', { n: 2 }, 'refused-2');
    const autoPaused = await waitFor(
      'the auto-paused notice',
      () => mailFor(paused.id).find((m) => kindOf(m) === 'auto_paused'),
      15_000,
    );
    assert.match(autoPaused.subject, /^Paused: your webhook subscription/);
    assert.match(autoPaused.text, /auto-paused: every delivery since .+ was dead-lettered \(2 in a row/);
    const pausedEvent = await waitFor('its webhook', () =>
      opsEvents(paused.id).find((e) => e.type === 'hookline.subscription.auto_paused'),
    );
    assert.equal(pausedEvent.data.deadLetterStreak, 2);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(mailFor(paused.id).filter((m) => kindOf(m) === 'auto_paused').length, 1);
  });

  it('refuses bad contactEmails and the reserved event types, naming the field', async () => {
    const tooMany = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/x`,
      contactEmails: Array.from({ length: 11 }, (_, i) => `a${i}@b.test`),
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error.message, /^contactEmails: must be a list of at most 10 email addresses/);
    const bad = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/x`,
      contactEmails: ['not an address'],
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^contactEmails: 'not an address' is not an email address/);
    const sub = await stack.subscribe('/x');
    const patched = await stack.api.patch(`/v1/subscriptions/${sub.id}`, { contactEmails: ['ops@customer.test'] });
    assert.deepEqual(patched.body.contactEmails, ['ops@customer.test']);
    assert.deepEqual(
      (await stack.api.patch(`/v1/subscriptions/${sub.id}`, { contactEmails: null })).body.contactEmails,
      [],
    );
    const reserved = await stack.api.post('/v1/events', { type: 'hookline.subscription.failing', payload: {} });
    assert.equal(reserved.status, 400);
    assert.match(reserved.body.error.message, /^type: must not start with 'hookline\.'/);
  });
});

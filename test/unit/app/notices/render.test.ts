import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderNoticeEmail } from '#app/notices/render.ts';
import type { FailingEvent, LostSummaryEvent } from '#app/notices/operational-events.ts';

const NOW = Date.parse('2024-05-01T13:00:00.000Z');
const failing: FailingEvent = {
  kind: 'failing',
  noticeId: 'sub_1#2024-05-01T12:00:00.000Z#failing',
  subscription: { id: 'sub_1', url: 'https://hooks.example.com/in?a=1&b=<2>', tenantId: null, description: 'billing' },
  failingSince: '2024-05-01T12:00:00.000Z',
  deadLettersUrl: 'https://console.example.com/dead-letters?subscriptionId=sub_1',
  failingForSeconds: 3600,
  recentAttempts: [
    { deliveryId: 'dlv_3', at: '2024-05-01T12:59:00.000Z', status: 503, error: null },
    { deliveryId: 'dlv_2', at: '2024-05-01T12:58:00.000Z', status: 503, error: null },
    {
      deliveryId: 'dlv_1',
      at: '2024-05-01T12:57:00.000Z',
      status: null,
      error: 'timeout: no response within 15000 ms',
    },
  ],
  retryingUntil: '2024-05-04T12:00:00.000Z',
  recentEvents: [
    {
      eventId: 'inv-<script>',
      eventType: 'invoice.paid',
      createdAt: '2024-05-01T12:59:00.000Z',
      deliveryId: 'dlv_3',
      state: 'pending',
      attempts: 4,
      lastStatus: 503,
    },
  ],
};

describe('notice emails', () => {
  it('the first notice, in substance: URL, how long, the statuses, how long retries go on, the last events', () => {
    const email = renderNoticeEmail(failing, NOW)!;
    assert.equal(email.subject, 'Failing: your webhook endpoint https://hooks.example.com/in?a=1&b=<2> (1 hour)');
    assert.match(
      email.text,
      /^Your webhook endpoint https:\/\/hooks\.example\.com\/in\?a=1&b=<2> has been failing for 1 hour \(since 2024-05-01T12:00:00\.000Z\)\./,
    );
    assert.match(
      email.text,
      /The most recent attempts returned 503 \(2 times\), timeout: no response within 15000 ms\./,
    );
    assert.match(email.text, /We will continue retrying for 2 days 23 hours \(until 2024-05-04T12:00:00\.000Z/);
    assert.match(email.text, /If your endpoint is down, please fix it/);
    assert.match(
      email.text,
      /Last 1 events:\n {2}- inv-<script> invoice\.paid at 2024-05-01T12:59:00\.000Z: pending, 4 attempts, last 503/,
    );
    assert.ok(email.text.includes(failing.deadLettersUrl));
  });

  it('the HTML part says the same, with everything from outside escaped', () => {
    const { html } = renderNoticeEmail(failing, NOW)!;
    assert.ok(html.includes('https://hooks.example.com/in?a=1&amp;b=&lt;2&gt;'));
    assert.ok(html.includes('inv-&lt;script&gt;'));
    assert.ok(!html.includes('<script>'));
    assert.ok(html.includes('href="https://console.example.com/dead-letters?subscriptionId=sub_1"'));
  });

  it('a subject never carries a line break (a description or URL cannot add a header)', () => {
    const email = renderNoticeEmail(
      { ...failing, subscription: { ...failing.subscription, url: 'https://x.example/\r\nBcc: evil@x.example' } },
      NOW,
    )!;
    assert.ok(!/[\r\n]/.test(email.subject));
  });

  it('the lost summary counts and lists what was lost, and says when the list is cut', () => {
    const lost: LostSummaryEvent = {
      kind: 'lost',
      noticeId: 'n',
      subscription: failing.subscription,
      failingSince: failing.failingSince,
      deadLettersUrl: failing.deadLettersUrl,
      expired: 140,
      failed: 2,
      truncated: true,
      events: [
        {
          eventId: 'inv-1',
          eventType: 'invoice.paid',
          deliveryId: 'dlv_1',
          state: 'expired',
          deadLetteredAt: '2024-05-04T12:00:00.000Z',
          lastStatus: 503,
          lastError: 'HTTP 503',
        },
      ],
    };
    const email = renderNoticeEmail(lost, NOW)!;
    assert.match(email.subject, /^142 events were not delivered/);
    assert.match(
      email.text,
      /140 deliveries expired \(retried until the deadline\) and 2 failed \(refused with a permanent error\), at least/,
    );
    assert.match(
      email.text,
      /The first 1 events not delivered:\n {2}- inv-1 invoice\.paid: expired at 2024-05-04T12:00:00\.000Z, last 503/,
    );
  });

  it("replay.completed is never emailed (it is the producer's own business)", () => {
    assert.equal(renderNoticeEmail({ kind: 'replay_completed', noticeId: 'n', replay: {} as never }, NOW), undefined);
  });
});

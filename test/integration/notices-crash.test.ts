import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { startChildRuntime, type ChildRuntime } from '#test/child-runtime.ts';
import { FAST_RETRY_POLICY } from '#test/local-stack.ts';
import { TestReceiver } from '#test/receiver.ts';
import { SmtpSink } from '#test/smtp-sink.ts';
import { waitFor } from '#test/wait.ts';

const ADMIN_KEY = 'hk_admin_notice_crash_test_0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hookline-notice-crash-'));
const receiver = new TestReceiver();
const smtp = new SmtpSink();
let child: ChildRuntime | undefined;

after(async () => {
  child?.process.kill('SIGKILL');
  await receiver.stop();
  await smtp.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('SIGKILL between deciding a notice and sending it: after a restart it is still sent, once (email and webhook)', {
  timeout: 120_000,
}, async () => {
  await receiver.start();
  await smtp.start();
  const env = {
    HOOKLINE_DATA_DIR: dataDir,
    HOOKLINE_ADMIN_KEY: ADMIN_KEY,
    HOOKLINE_SENDER_TIMEOUT_MS: '1000',
    HOOKLINE_SWEEP_GRACE_SECONDS: '15',
    HOOKLINE_NOTICE_INTERVAL_MS: '300',
    HOOKLINE_NOTICE_FIRST_SECONDS: '2',
    HOOKLINE_NOTICE_SECOND_SECONDS: '3600',
    HOOKLINE_NOTICE_LEASE_SECONDS: '2',
    HOOKLINE_NOTICE_SUPPORT_EMAIL: 'support@producer.test',
    HOOKLINE_SMTP_URL: smtp.url,
  };
  receiver.script('/down', [], { status: 503 }).script('/ops', [], { status: 200 });
  child = await startChildRuntime(env);
  let api = apiClient(child.url, ADMIN_KEY);
  const sub = await api.post('/v1/subscriptions', {
    url: `${receiver.url}/down`,
    retryPolicy: { ...FAST_RETRY_POLICY, deadlineSeconds: 300 },
    contactEmails: ['frank@customer.test'],
  });
  const ops = await api.post('/v1/subscriptions', {
    url: `${receiver.url}/ops`,
    eventTypes: ['hookline.subscription.*'],
    retryPolicy: FAST_RETRY_POLICY,
  });
  assert.deepEqual([sub.status, ops.status], [201, 201]);
  receiver.expectSecret('/ops', ops.body.secret);

  // The mail server takes the connection and never greets: the notifier has decided the notice
  // (the conditional put came first) and is stuck sending it when the process dies.
  smtp.hanging = true;
  await api.post('/v1/events', { id: 'crash-notice-1', type: 'order.created', payload: { n: 1 } });
  await waitFor('the notifier to be sending the first notice', () => smtp.connections > 0, 30_000, 50);
  await new Promise((r) => setTimeout(r, 300));
  child.process.kill('SIGKILL');
  await child.exited;
  assert.equal(smtp.messages.length, 0, 'nothing was sent before the kill');

  smtp.hanging = false;
  child = await startChildRuntime(env);
  api = apiClient(child.url, ADMIN_KEY);
  const failingNotices = () =>
    smtp.messages.filter(
      (m) =>
        m.headers['x-hookline-notice']?.startsWith(`${sub.body.id}#`) &&
        m.headers['x-hookline-notice'].endsWith('#failing'),
    );
  await waitFor(
    'the notice, sent by the restarted runtime once its lease ran out',
    () => failingNotices().length > 0,
    30_000,
    100,
  );
  // A few more notifier runs: none sends it again.
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(failingNotices().length, 1, 'sent once');
  const [mail] = failingNotices();
  assert.deepEqual([...mail!.to].sort(), ['frank@customer.test', 'support@producer.test']);
  assert.match(
    mail!.headers.subject!,
    new RegExp(`^Failing: your webhook endpoint ${receiver.url}/down \\(\\d+ seconds\\)$`),
  );
  assert.ok(
    mail!.raw.includes('Content-Type: text/plain') && mail!.raw.includes('Content-Type: text/html'),
    'plain text and HTML',
  );

  const webhooks = receiver.distinct('/ops').filter((r) => {
    const data = JSON.parse(r.body).data;
    return data.subscription.id === sub.body.id && data.kind === 'failing';
  });
  assert.equal(
    webhooks.length,
    1,
    "the operational webhook went once too (its id is the notice's, so the re-send was a duplicate publish)",
  );
  assert.ok(webhooks.every((r) => r.verified));
});

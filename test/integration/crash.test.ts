import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { apiClient } from '#test/api-client.ts';
import { startChildRuntime, type ChildRuntime } from '#test/child-runtime.ts';
import { FAST_RETRY_POLICY } from '#test/local-stack.ts';
import { TestReceiver } from '#test/receiver.ts';
import { waitFor } from '#test/wait.ts';

const EVENTS = 300;
const ADMIN_KEY = 'hk_admin_crash_test_key_0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hookline-crash-'));
const env = {
  HOOKLINE_DATA_DIR: dataDir,
  HOOKLINE_ADMIN_KEY: ADMIN_KEY,
  HOOKLINE_SENDER_TIMEOUT_MS: '1000',
  // Long enough that a first attempt's message is younger than the grace: it carries its expectation, and reads nothing.
  HOOKLINE_SWEEP_GRACE_SECONDS: '15',
  HOOKLINE_SWEEP_INTERVAL_MS: '1000',
};
let child: ChildRuntime | undefined;
const receiver = new TestReceiver();

after(async () => {
  child?.process.kill('SIGKILL');
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it(`SIGKILL mid-flight loses nothing: ${EVENTS} events, killed while retrying, all delivered after a restart on the same data`, {
  timeout: 180_000,
}, async () => {
  await receiver.start();
  // The first attempt of (about) every event fails, so when the process dies most deliveries
  // are waiting for a retry whose SQS message is invisible, and some are being sent.
  receiver.script(
    '/crash',
    Array.from({ length: EVENTS }, () => ({ status: 500 })),
    { status: 200 },
  );
  child = await startChildRuntime(env);
  let api = apiClient(child.url, ADMIN_KEY);
  // Retries 1.5 to 4.5 s apart: slow enough that the kill lands while most are still waiting.
  const sub = await api.post('/v1/subscriptions', {
    url: `${receiver.url}/crash`,
    retryPolicy: {
      ...FAST_RETRY_POLICY,
      initialDelaySeconds: 3,
      maxDelaySeconds: 3,
      jitter: 0.5,
      deadlineSeconds: 120,
    },
  });
  assert.equal(sub.status, 201);
  receiver.expectSecret('/crash', sub.body.secret);

  const accepted = new Map<string, string>();
  const publishAll = async () => {
    for (let i = 0; i < EVENTS; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, EVENTS - i) }, async (_, j) => {
          const id = `crash-${i + j}`;
          if (accepted.has(id)) return;
          const res = await api
            .post('/v1/events', { id, type: 'crash.test', payload: { n: i + j } })
            .catch(() => undefined);
          if (res && (res.status === 202 || res.status === 200)) accepted.set(id, res.body.deliveryIds[0]);
        }),
      );
    }
  };
  await publishAll();
  await waitFor('retries under way', () => receiver.on('/crash').length >= EVENTS + 30, 60_000, 5);
  child.process.kill('SIGKILL');
  await child.exited;
  const acceptedBeforeKill = accepted.size;
  const receivedBeforeKill = receiver.on('/crash').length;

  const restartedAtMs = Date.now();
  child = await startChildRuntime(env);
  api = apiClient(child.url, ADMIN_KEY);
  assert.equal(accepted.size, EVENTS, 'every event was accepted before the kill');

  const terminal = await waitFor(
    'every delivery terminal',
    async () => {
      const states = new Map<string, number>();
      let cursor: string | null = null;
      do {
        const res: any = await api.get(
          `/v1/deliveries?subscriptionId=${sub.body.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        for (const d of res.body.items) states.set(d.state, (states.get(d.state) ?? 0) + 1);
        cursor = res.body.nextCursor;
      } while (cursor);
      const total = [...states.values()].reduce((a, b) => a + b, 0);
      const done = (states.get('delivered') ?? 0) + (states.get('failed') ?? 0) + (states.get('expired') ?? 0);
      return total === EVENTS && done === EVENTS ? states : undefined;
    },
    120_000,
    500,
  );
  const recoverySeconds = (Date.now() - restartedAtMs) / 1000;

  const ok = receiver.on('/crash').filter((r) => r.verified && r.answeredWith === 200);
  const okPerEvent = new Map<string, number>();
  for (const r of ok) okPerEvent.set(r.webhookId, (okPerEvent.get(r.webhookId) ?? 0) + 1);
  const lost = [...accepted.keys()].filter((id) => !okPerEvent.has(id));
  const duplicates = [...okPerEvent.values()].reduce((a, n) => a + n - 1, 0);
  console.log(
    `crash test: events=${EVENTS} acceptedBeforeKill=${acceptedBeforeKill} receivedBeforeKill=${receivedBeforeKill} ` +
      `delivered=${terminal.get('delivered') ?? 0} lost=${lost.length} duplicates=${duplicates} ` +
      `(${((duplicates / EVENTS) * 100).toFixed(1)}%) requests=${receiver.on('/crash').length} secondsFromRestartToAllDelivered=${recoverySeconds.toFixed(1)}`,
  );
  assert.equal(lost.length, 0, `lost: ${lost.slice(0, 5).join(', ')}`);
  assert.equal(terminal.get('delivered'), EVENTS);
  assert.ok(
    receiver.on('/crash').every((r) => r.verified),
    'every request carried a valid signature',
  );
});

it('shuts down cleanly on SIGTERM and SIGINT', { timeout: 60_000 }, async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const runtime = await startChildRuntime({
      ...env,
      HOOKLINE_DATA_DIR: mkdtempSync(join(tmpdir(), 'hookline-signal-')),
    });
    const health = await fetch(`${runtime.url}/health`);
    assert.equal(health.status, 200);
    runtime.process.kill(signal);
    assert.equal(await runtime.exited, 0, `${signal} exits with 0`);
  }
});

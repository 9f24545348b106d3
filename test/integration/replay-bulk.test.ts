import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

const SUBSCRIPTIONS = 10;
const EVENTS = 210;
const DEAD_LETTERS = SUBSCRIPTIONS * EVENTS;
/** A short window (production default: 300 s) so the test sees the whole spread. */
const WINDOW_SECONDS = 30;
const BUCKET_SECONDS = 2;

let stack: LocalStack;
before(async () => {
  stack = await startLocalStack({ senderConcurrency: 6 });
});
after(() => stack.stop());

it(`bulk replay of ${DEAD_LETTERS} dead letters: re-attempts spread over a ${WINDOW_SECONDS} s window, every one delivered`, {
  timeout: 170_000,
}, async (t) => {
  const paths = Array.from({ length: SUBSCRIPTIONS }, (_, i) => `/bulk-${i}`);
  for (const path of paths) {
    stack.receiver.script(path, [], { status: 422 });
    await stack.subscribe(path, { eventTypes: ['bulk.replay'] });
  }
  const deliveryIds: string[] = [];
  for (let i = 0; i < EVENTS; i += 15) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(15, EVENTS - i) }, (_, j) => stack.publish('bulk.replay', { n: i + j })),
    );
    deliveryIds.push(...batch.flatMap((b) => b.deliveryIds));
  }
  assert.equal(deliveryIds.length, DEAD_LETTERS);
  // Deliveries, not requests: at-least-once may repeat one under this load.
  await waitFor(
    `${DEAD_LETTERS} first attempts`,
    () => paths.every((p) => stack.receiver.distinctCount(p) === EVENTS),
    90_000,
    250,
  );
  const dead = await waitFor(
    'every delivery dead-lettered',
    async () => {
      let total = 0;
      const subs = (await stack.api.get('/v1/subscriptions?limit=100')).body.items;
      for (const s of subs) {
        let cursor: string | null = null;
        do {
          const page: any = (
            await stack.api.get(`/v1/dead-letters?subscriptionId=${s.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
          ).body;
          total += page.items.length;
          cursor = page.nextCursor;
        } while (cursor);
      }
      return total === DEAD_LETTERS ? total : undefined;
    },
    30_000,
    500,
  );
  assert.equal(dead, DEAD_LETTERS);

  for (const path of paths) stack.receiver.script(path, [], { status: 200 });
  const firstAttempts = stack.receiver.requests.length;
  const startedAt = Date.now();
  const res = await stack.api.post('/v1/replays', {
    createdFrom: new Date(startedAt - 3_600_000).toISOString(),
    createdTo: new Date().toISOString(),
    windowSeconds: WINDOW_SECONDS,
    operator: 'bulk-test',
  });
  const answeredMs = Date.now() - startedAt;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    [res.body.status, res.body.matched, res.body.replayed, res.body.skipped],
    ['completed', DEAD_LETTERS, DEAD_LETTERS, 0],
  );

  await waitFor(
    'every replayed delivery received',
    () => stack.receiver.distinctCount(undefined, firstAttempts) >= DEAD_LETTERS,
    (WINDOW_SECONDS + 60) * 1000,
    250,
  );
  // Each dead letter re-sent (the replay's own counts above say each was replayed once); a repeat is at-least-once, not a second replay.
  const replays = stack.receiver.distinct(undefined, firstAttempts);
  assert.equal(replays.length, DEAD_LETTERS, 'each delivery re-sent');
  assert.ok(stack.receiver.requests.slice(firstAttempts).every((r) => r.verified));

  // The spread: arrival times relative to the start of the replay, in 2 s buckets. Each page's
  // deliveries are spread over the window from the moment they are replayed, so arrivals ramp up
  // while the replay runs, then hold at about DEAD_LETTERS / WINDOW per second.
  const offsets = replays.map((r) => (r.receivedAt - startedAt) / 1000).sort((a, b) => a - b);
  const last = offsets[offsets.length - 1]!;
  const buckets = Array.from({ length: Math.ceil(last / BUCKET_SECONDS) }, () => 0);
  for (const o of offsets) buckets[Math.min(buckets.length - 1, Math.floor(o / BUCKET_SECONDS))]!++;
  const pct = (q: number) => offsets[Math.min(offsets.length - 1, Math.floor(q * offsets.length))]!;
  t.diagnostic(
    `bulk replay answered in ${answeredMs} ms: matched ${res.body.matched}, replayed ${res.body.replayed}, window ${WINDOW_SECONDS} s, ${stack.receiver.requests.length - firstAttempts} requests`,
  );
  t.diagnostic(
    `arrivals after start: first ${offsets[0]!.toFixed(1)} s, p10 ${pct(0.1).toFixed(1)} s, p50 ${pct(0.5).toFixed(1)} s, p90 ${pct(0.9).toFixed(1)} s, last ${last.toFixed(1)} s`,
  );
  t.diagnostic(
    `per ${BUCKET_SECONDS} s: ${buckets.map((n, i) => `${i * BUCKET_SECONDS}-${(i + 1) * BUCKET_SECONDS}s:${n}`).join(' ')}`,
  );

  // Spread, not a spike: arrivals start at once, reach the end of the window, stop soon after
  // it (plus the time the replay itself took), and no 2 s slice takes more than twice the
  // uniform share (DEAD_LETTERS / 15 = 140).
  const share = DEAD_LETTERS / (WINDOW_SECONDS / BUCKET_SECONDS);
  assert.ok(offsets[0]! < 4, `first arrival at ${offsets[0]} s`);
  assert.ok(last > WINDOW_SECONDS * 0.8, `last arrival at ${last} s: the spread does not reach the end of the window`);
  assert.ok(last < WINDOW_SECONDS + answeredMs / 1000 + 10, `last arrival at ${last} s: stragglers beyond the window`);
  assert.ok(pct(0.5) > WINDOW_SECONDS * 0.3, `median ${pct(0.5)} s: bunched at the start`);
  for (const [i, n] of buckets.entries())
    assert.ok(n < share * 2, `${i * BUCKET_SECONDS}-${(i + 1) * BUCKET_SECONDS} s holds ${n} (> 2 x ${share})`);

  for (const id of deliveryIds.filter((_, i) => i % 50 === 0))
    assert.equal((await stack.delivery(id)).state, 'delivered', id);
  const remaining = (await stack.api.get('/v1/dead-letters?limit=100')).body.items.length;
  assert.equal(remaining, 0, 'no dead letter left');
});

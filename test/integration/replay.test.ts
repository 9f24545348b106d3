import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildDeps } from '#adapters/function-deps.ts';
import { startBulkReplay } from '#app/replay/bulk-replay.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';

/** Replay on the local runtime: single replays from each terminal state, refusals, bulk replay criteria, the audit trail, resuming. */
describe('replay', () => {
  let stack: LocalStack;
  const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
  const now = () => new Date(Date.now() + 1000).toISOString();

  before(async () => {
    stack = await startLocalStack({ env: { HOOKLINE_REPLAY_WINDOW_SECONDS: '2' } });
  });
  after(() => stack.stop());

  const cases = [
    { state: 'failed', first: { status: 422, body: 'bad payload' }, policy: {} },
    // One attempt allowed: a 500 is dead-lettered as expired at once.
    { state: 'expired', first: { status: 500 }, policy: { maxAttempts: 1 } },
    { state: 'delivered', first: { status: 200 }, policy: {} },
  ] as const;
  for (const c of cases) {
    it(`replays a ${c.state} delivery: pending, attempts 0, fresh give_up_at, last_error cleared; then delivered with the same id and body`, async () => {
      const path = `/single-${c.state}`;
      stack.receiver.script(path, [c.first], { status: 200 });
      await stack.subscribe(path, {
        eventTypes: [`single.${c.state}`],
        retryPolicy: {
          initialDelaySeconds: 1,
          multiplier: 1,
          maxDelaySeconds: 1,
          jitter: 0,
          deadlineSeconds: 30,
          ...c.policy,
        },
      });
      const { eventId, deliveryIds } = await stack.publish(`single.${c.state}`, { case: c.state });
      const id = deliveryIds[0]!;
      const before = await stack.waitForState(id, [c.state]);
      assert.equal(before.attempts, 1);
      if (c.state !== 'delivered') assert.ok(before.lastError);

      await new Promise((r) => setTimeout(r, 1100)); // the fresh deadline must be visibly later
      const res = await stack.api.post(`/v1/deliveries/${id}/replay`);
      assert.equal(res.status, 202);
      assert.equal(res.body.state, 'pending');
      assert.equal(res.body.attempts, 0);
      assert.equal(res.body.lastError, null);
      assert.ok(
        res.body.giveUpAt > before.giveUpAt,
        `give_up_at ${res.body.giveUpAt} is fresh (was ${before.giveUpAt})`,
      );
      assert.ok(Date.parse(res.body.nextAttemptAt) <= Date.now() + 1000, 'due now');

      const afterReplay = await stack.waitForState(id, ['delivered']);
      assert.equal(afterReplay.attempts, 1, 'the backoff restarted from the first attempt');
      assert.deepEqual(
        afterReplay.attemptLog.map((a: any) => [a.seq, a.attempt]),
        [
          [1, 1],
          [2, 1],
        ],
        'the log keeps the earlier attempt',
      );
      const requests = stack.receiver.on(path);
      assert.equal(requests.length, 2);
      assert.ok(requests.every((r) => r.verified && r.webhookId === eventId && r.body === requests[0]!.body));
    });
  }

  it('refuses to replay a pending or in-flight delivery with a clear 409, and an unknown one with 404', async () => {
    const paused = await stack.subscribe('/refuse-pending', { eventTypes: ['refuse.pending'] });
    assert.equal((await stack.api.post(`/v1/subscriptions/${paused.id}/pause`)).status, 200);
    const pending = (await stack.publish('refuse.pending', {})).deliveryIds[0]!;
    const res = await stack.api.post(`/v1/deliveries/${pending}/replay`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
    assert.match(res.body.error.message, /is pending; only failed, expired, delivered deliveries can be replayed/);

    // Nothing is claimed: a replayed delivery is pending until its attempt's outcome is written, so a second replay meanwhile is refused.
    stack.receiver.script('/refuse-flight', [{ status: 200 }, { status: 200, delayMs: 1500 }]);
    await stack.subscribe('/refuse-flight', { eventTypes: ['refuse.flight'] });
    const flying = (await stack.publish('refuse.flight', {})).deliveryIds[0]!;
    await stack.waitForState(flying, ['delivered']);
    assert.equal((await stack.api.post(`/v1/deliveries/${flying}/replay`)).status, 202);
    await waitFor("the replay's POST under way", async () => stack.receiver.on('/refuse-flight').length === 2);
    const busy = await stack.api.post(`/v1/deliveries/${flying}/replay`);
    assert.equal(busy.status, 409);
    assert.match(busy.body.error.message, /is pending/);
    assert.equal((await stack.waitForState(flying, ['delivered'])).attempts, 1, "the replay's one attempt");

    const unknown = await stack.api.post('/v1/deliveries/dlv_doesnotexist000000000/replay');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
  });

  it('bulk: a dry run counts and samples without changing anything; the real run replays only what matches', async () => {
    stack.receiver.script('/bulk-a', [], { status: 422 });
    stack.receiver.script('/bulk-b', [], { status: 422 });
    const a = await stack.subscribe('/bulk-a', { eventTypes: ['bulk.crit'] });
    const b = await stack.subscribe('/bulk-b', { eventTypes: ['bulk.crit'] });
    const published = await Promise.all(Array.from({ length: 6 }, (_, i) => stack.publish('bulk.crit', { i })));
    const all = published.flatMap((p) => p.deliveryIds);
    await Promise.all(all.map((id) => stack.waitForState(id, ['failed'])));
    const ofA = (await Promise.all(all.map((id) => stack.delivery(id))))
      .filter((d) => d.subscriptionId === a.id)
      .map((d) => d.id);

    const dry = await stack.api.post('/v1/replays', {
      subscriptionId: a.id,
      createdFrom: hourAgo(),
      createdTo: now(),
      dryRun: true,
      operator: 'alice@ops',
    });
    assert.equal(dry.status, 200);
    assert.equal(dry.body.status, 'completed');
    assert.equal(dry.body.matched, 6);
    assert.equal(dry.body.replayed, 0);
    assert.deepEqual([...dry.body.sample].sort(), [...ofA].sort());
    for (const id of all) assert.equal((await stack.delivery(id)).state, 'failed', 'a dry run changes nothing');

    stack.receiver.script('/bulk-a', [], { status: 200 });
    const run = await stack.api.post('/v1/replays', {
      subscriptionId: a.id,
      createdFrom: hourAgo(),
      createdTo: now(),
      operator: 'alice@ops',
    });
    assert.equal(run.status, 200);
    assert.deepEqual([run.body.matched, run.body.replayed, run.body.skipped], [6, 6, 0]);
    await Promise.all(ofA.map((id) => stack.waitForState(id, ['delivered'])));
    for (const id of all.filter((x) => !ofA.includes(x)))
      assert.equal((await stack.delivery(id)).state, 'failed', `${b.id} was not part of the replay`);

    // Outside the time range: nothing matches.
    // (Within the retention window: a range reaching back before it is refused, see tenant-controls.test.ts.)
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    const old = await stack.api.post('/v1/replays', {
      createdFrom: daysAgo(30),
      createdTo: daysAgo(29),
      states: ['failed', 'expired', 'delivered'],
    });
    assert.equal(old.body.matched, 0);
  });

  it('bulk: states and tenant select what is replayed (delivered only when asked for)', async () => {
    await stack.subscribe('/tenant-x', { eventTypes: ['bulk.tenant'], tenantId: 'tenant-x' });
    await stack.subscribe('/tenant-y', { eventTypes: ['bulk.tenant'], tenantId: 'tenant-y' });
    const ids = (
      await Promise.all(
        Array.from({ length: 3 }, () => stack.publish('bulk.tenant', {}, undefined, { audience: 'all' })),
      )
    ).flatMap((p) => p.deliveryIds);
    await Promise.all(ids.map((id) => stack.waitForState(id, ['delivered'])));
    const defaults = await stack.api.post('/v1/replays', {
      tenantId: 'tenant-x',
      createdFrom: hourAgo(),
      createdTo: now(),
      dryRun: true,
    });
    assert.equal(defaults.body.matched, 0, 'the default states are the dead letters');
    assert.deepEqual(defaults.body.criteria.states, ['expired', 'failed']);

    const res = await stack.api.post('/v1/replays', {
      tenantId: 'tenant-x',
      states: ['delivered'],
      createdFrom: hourAgo(),
      createdTo: now(),
    });
    assert.deepEqual([res.body.matched, res.body.replayed], [3, 3]);
    await waitFor('tenant-x deliveries sent twice', () => stack.receiver.on('/tenant-x').length >= 6);
    assert.equal(stack.receiver.on('/tenant-y').length, 3, 'tenant-y untouched');
  });

  it('keeps an audit trail: every bulk replay, newest first, with operator, criteria, counts and times', async () => {
    const list = await stack.api.get('/v1/replays?limit=100');
    assert.equal(list.status, 200);
    const items = list.body.items;
    assert.ok(items.length >= 5);
    const started = items.map((r: any) => r.startedAt);
    assert.deepEqual(started, [...started].sort().reverse(), 'newest first');
    const mine = items.filter((r: any) => r.operator === 'alice@ops');
    assert.equal(mine.length, 2);
    for (const r of items) {
      assert.equal(r.status, 'completed');
      assert.ok(r.finishedAt >= r.startedAt);
      assert.equal(r.principal, 'admin');
      assert.ok(r.criteria.createdFrom && r.criteria.createdTo);
    }
    const one = await stack.api.get(`/v1/replays/${mine[0].id}`);
    assert.deepEqual(one.body, mine[0]);
    assert.equal((await stack.api.get('/v1/replays/rpl_missing0000000000000')).status, 404);
  });

  it('bulk: a replay cut short by its time budget is checkpointed and finished by the resume schedule', async () => {
    stack.receiver.script('/resume', [], { status: 422 });
    const sub = await stack.subscribe('/resume', { eventTypes: ['bulk.resume'] });
    const ids = (await Promise.all(Array.from({ length: 23 }, (_, i) => stack.publish('bulk.resume', { i })))).flatMap(
      (p) => p.deliveryIds,
    );
    await Promise.all(ids.map((id) => stack.waitForState(id, ['failed'])));
    stack.receiver.script('/resume', [], { status: 200 });

    // The replay function's own wiring, with 5-delivery pages and no time at all: one page, then a checkpoint.
    const base = buildDeps(
      'replay',
      stack.runtime.env,
      { clients: stack.runtime.clients, metrics: stack.runtime.metrics, subscriptionCacheMs: 0 },
      ALL_FACTORIES,
    );
    const deps = { ...base, replayPolicy: { windowSeconds: 1, pageSize: 5 } };
    const cut = await startBulkReplay(
      deps,
      {
        criteria: { states: ['failed'], subscriptionId: sub.id, createdFrom: hourAgo(), createdTo: now() },
        dryRun: false,
        operator: 'resume-test',
        principal: 'invoke',
      },
      { deadlineMs: 0 },
    );
    assert.equal(cut.status, 'running');
    // One page: at most 5, one from each of the first shards (a shard without one of these adds none).
    assert.equal(cut.replayed, cut.matched);
    assert.ok(cut.matched >= 1 && cut.matched <= 5, `${cut.matched} replayed in the one page`);
    assert.ok(cut.cursor, 'the checkpoint holds where to continue');

    await stack.runtime.runSchedule('replay');
    const done = (await stack.api.get(`/v1/replays/${cut.id}`)).body;
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.matched, done.replayed, done.skipped], [23, 23, 0]);
    await Promise.all(ids.map((id) => stack.waitForState(id, ['delivered'])));
    assert.equal(stack.receiver.on('/resume').length, 46, 'each delivery re-sent exactly once');
  });

  it('the replay function answers direct invocations (aws lambda invoke payloads), with API error codes', async () => {
    stack.receiver.script('/invoke', [{ status: 422 }], { status: 200 });
    await stack.subscribe('/invoke', { eventTypes: ['invoke.one'] });
    const id = (await stack.publish('invoke.one', {})).deliveryIds[0]!;
    await stack.waitForState(id, ['failed']);
    const single: any = await stack.runtime.invoke('replay', { deliveryId: id });
    assert.equal(single.state, 'pending');
    await stack.waitForState(id, ['delivered']);
    const bulk: any = await stack.runtime.invoke('replay', {
      createdFrom: hourAgo(),
      createdTo: now(),
      dryRun: true,
      operator: 'cli-user',
    });
    assert.equal(bulk.status, 'completed');
    assert.equal(bulk.principal, 'invoke');
    assert.deepEqual(await stack.runtime.invoke('replay', { deliveryId: 'dlv_nope000000000000000000' }), {
      status: 404,
      error: { code: 'not_found', message: 'delivery dlv_nope000000000000000000 does not exist' },
    });
    const bad: any = await stack.runtime.invoke('replay', { createdFrom: 'yesterday', createdTo: now() });
    assert.equal(bad.status, 400);
    assert.match(bad.error.message, /createdFrom/);
    const listed: any = await stack.runtime.invoke('replay', { action: 'list', limit: 2 });
    assert.equal(listed.items.length, 2);
  });
});

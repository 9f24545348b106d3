import assert from 'node:assert/strict';
import { QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { after, before, describe, it } from 'node:test';
import { buildDeps } from '#adapters/function-deps.ts';
import { systemClock } from '#adapters/system-clock.ts';
import { runArchive } from '#app/archive/archival.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { idCounts, OBJECT_KEY, readArchive } from '#test/archive.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { attemptTtlFor, DEFAULT_RETENTION, resolveRetentionPolicy } from '#domain/retention.ts';
import { RESPONSE_SNIPPET_BYTES } from '#domain/types.ts';

const BATCH = 50;
const DAY_MS = 86_400_000;
/** Retention 0 days: everything terminal is archivable at once, so the test needs no clock travel to archive. */
const ENV = {
  HOOKLINE_RETENTION_DELIVERED_DAYS: '0',
  // Delivered rows are archived here (off by default: TTL deletes them), so the archive has both kinds.
  HOOKLINE_ARCHIVE_DELIVERED: '1',
  HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0',
  HOOKLINE_ARCHIVE_BATCH_SIZE: String(BATCH),
};

/** ENV's retention, as the handlers resolve it. */
const RETENTION = resolveRetentionPolicy({ deliveredDays: 0, deadLetterDays: 0, archiveDelivered: 1 });

describe('archive to S3 and restore', () => {
  let stack: LocalStack;
  let deps: FunctionDeps<'archiver'>;
  const terminal = new Map<string, any>();
  const pendingIds: string[] = [];
  const bySub = new Map<string, string[]>();

  const archiverDeps = (env: Record<string, string> = {}) =>
    buildDeps(
      'archiver',
      { ...stack.runtime.env, ...env },
      { clients: stack.runtime.clients, metrics: stack.runtime.metrics, subscriptionCacheMs: 0 },
      ALL_FACTORIES,
    );
  const budget = () => ({ deadlineMs: Date.now() + 60_000 });
  const status = async (id: string) => (await stack.api.get(`/v1/deliveries/${id}`)).status;
  /** The TTL of each attempt the attempts table holds for a delivery (its latest is on its row). */
  const attemptTtls = async (id: string) =>
    (
      (
        await stack.runtime.clients.dynamodb.send(
          new QueryCommand({
            TableName: stack.runtime.env.ATTEMPTS_TABLE!,
            KeyConditionExpression: 'deliveryId = :d',
            ExpressionAttributeValues: { ':d': { S: id } },
          }),
        )
      ).Items ?? []
    ).map((i) => Number(i.expiresAt?.N));

  before(async () => {
    stack = await startLocalStack({ env: ENV });
    deps = archiverDeps();
    stack.receiver.script('/arch-bad', [], { status: 422, body: 'nope' });
    // Every other first attempt answers a long body: that one does not fit on the row beside the
    // second, so it goes to the attempts table; a short one stays on the row (domain/attempt-log.ts).
    stack.receiver.script(
      '/arch-retry',
      Array.from({ length: 10 }, (_, i) => ({
        status: 500,
        body: i % 2 ? 'x'.repeat(RESPONSE_SNIPPET_BYTES) : 'busy',
      })),
      { status: 200 },
    );
    const subs = {
      ok: await stack.subscribe('/arch-ok', { eventTypes: ['arch.ok'] }),
      bad: await stack.subscribe('/arch-bad', { eventTypes: ['arch.bad'] }),
      retry: await stack.subscribe('/arch-retry', { eventTypes: ['arch.retry'] }),
      paused: await stack.subscribe('/arch-paused', { eventTypes: ['arch.ok'] }),
    };
    await stack.api.post(`/v1/subscriptions/${subs.paused.id}/pause`);
    const publish = async (type: string, n: number) => {
      for (let i = 0; i < n; i += 20)
        await Promise.all(Array.from({ length: Math.min(20, n - i) }, (_, j) => stack.publish(type, { i: i + j })));
    };
    await publish('arch.ok', 120);
    await publish('arch.bad', 60);
    await publish('arch.retry', 10);
    for (const [name, sub] of Object.entries(subs)) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = (
          await stack.api.get(`/v1/deliveries?subscriptionId=${sub.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        ).body;
        ids.push(...page.items.map((d: any) => d.id));
        cursor = page.nextCursor;
      } while (cursor);
      bySub.set(sub.id, ids);
      if (name === 'paused') pendingIds.push(...ids);
      else
        for (const id of ids)
          terminal.set(id, await stack.waitForState(id, name === 'bad' ? ['failed'] : ['delivered'], 30_000));
    }
    assert.equal(terminal.size, 190);
    assert.equal(pendingIds.length, 120);
  });
  after(() => stack.stop());

  it('archives nothing younger than the retention (default 30 and 90 days), and never a live delivery', async () => {
    const report = await runArchive(
      archiverDeps({ HOOKLINE_RETENTION_DELIVERED_DAYS: '30', HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '90' }),
      { budget: budget() },
    );
    assert.deepEqual(report, {
      kind: 'done',
      objects: 0,
      archived: 0,
      kept: 0,
      dropped: 0,
      resumed: 0,
      subscriptions: 0,
    });
    assert.equal((await readArchive(stack.runtime.clients.s3)).length, 0);
  });

  it('archive: batched gzip NDJSON objects partitioned by day and subscription, every record exactly once, with attempts and body; then the rows are gone', async (t) => {
    const report: any = await stack.runtime.invoke('archiver', { action: 'archive' });
    const objects = await readArchive(stack.runtime.clients.s3);
    t.diagnostic(
      `archive run: ${JSON.stringify(report)}; ${objects.length} objects, ${objects.map((o) => `${o.records.length} records/${o.bytes} B`).join(', ')}`,
    );
    assert.equal(report.kind, 'done');
    assert.equal(report.archived, 190);
    assert.equal(report.objects, objects.length);

    const counts = idCounts(objects);
    assert.equal(counts.size, 190);
    assert.deepEqual([...counts.keys()].sort(), [...terminal.keys()].sort());
    assert.ok(
      [...counts.values()].every((n) => n === 1),
      'every record exactly once',
    );
    for (const o of objects) {
      const m = OBJECT_KEY.exec(o.key);
      assert.ok(m, o.key);
      assert.ok(o.records.length <= BATCH && o.records.length >= 1);
      for (const r of o.records) {
        assert.equal(r.delivery.createdAt.slice(0, 10), m[1]);
        assert.equal(r.delivery.subscriptionId, m[2]);
      }
    }
    // Many records per object, not one per delivery: per day and subscription, ceil(n / batch) objects.
    const expectedObjects = new Map<string, number>();
    for (const d of terminal.values())
      expectedObjects.set(
        `${d.createdAt.slice(0, 10)} ${d.subscriptionId}`,
        (expectedObjects.get(`${d.createdAt.slice(0, 10)} ${d.subscriptionId}`) ?? 0) + 1,
      );
    assert.equal(
      objects.length,
      [...expectedObjects.values()].reduce((sum, n) => sum + Math.ceil(n / BATCH), 0),
    );

    for (const o of objects) {
      for (const r of o.records) {
        const before = terminal.get(r.delivery.id);
        assert.equal(r.delivery.state, before.state);
        assert.equal(r.event?.body, before.body, 'the exact body sent');
        assert.deepEqual(
          r.attempts.map((a) => [a.seq, a.status]),
          before.attemptLog.map((a: any) => [a.seq, a.status]),
        );
      }
    }
    const retried = [...terminal.values()].filter((d) => d.attemptLog.length === 2);
    assert.equal(retried.length, 10);

    const statuses = await Promise.all([...terminal.keys()].map(status));
    assert.ok(
      statuses.every((s) => s === 404),
      'archived rows are gone from DynamoDB',
    );
    // Their logged attempts are left to TTL (free), a month or so past the archival of a dead letter.
    const long = retried.filter((d) => d.attemptLog[0].responseSnippet.length === RESPONSE_SNIPPET_BYTES);
    assert.equal(long.length, 5, 'half of them answered long bodies first');
    for (const d of retried) {
      const ttls = await attemptTtls(d.id);
      if (!long.includes(d)) {
        assert.deepEqual(ttls, [], `the first attempt of ${d.id} was on its row: nothing in the table`);
        continue;
      }
      assert.equal(ttls.length, 1, `the first attempt of ${d.id} is left to its TTL`);
      const giveUpAt = Date.parse(d.giveUpAt);
      assert.equal(ttls[0], attemptTtlFor(giveUpAt, RETENTION), `${d.id} keeps the TTL it was written with`);
    }
    const pending = await Promise.all(pendingIds.map(status));
    assert.ok(
      pending.every((s) => s === 200),
      'live deliveries are never archived',
    );
    const manifests = await stack.runtime.clients.dynamodb.send(
      new ScanCommand({ TableName: stack.runtime.env.ARCHIVE_BATCHES_TABLE! }),
    );
    assert.equal(manifests.Count, 0, 'no unfinished batch left');

    const again = await runArchive(deps, { budget: budget() });
    assert.deepEqual([again.objects, again.archived], [0, 0]);
    assert.equal((await readArchive(stack.runtime.clients.s3)).length, objects.length, 'a second run adds nothing');
  });

  it('restore brings a range back (attempts and body included), put-if-absent, and the archiver does not archive it twice', async () => {
    const days = [...new Set([...terminal.values()].map((d) => d.createdAt.slice(0, 10)))].sort();
    const report: any = await stack.runtime.invoke('archiver', {
      action: 'restore',
      from: days[0],
      to: days[days.length - 1],
    });
    assert.deepEqual([report.records, report.restored, report.present], [190, 190, 0]);
    for (const [id, before] of terminal) {
      const d = (await stack.api.get(`/v1/deliveries/${id}`)).body;
      for (const field of [
        'state',
        'attempts',
        'lastStatus',
        'lastError',
        'body',
        'createdAt',
        'updatedAt',
        'eventId',
        'subscriptionId',
      ])
        assert.deepEqual(d[field], before[field], `${id} ${field}`);
      assert.deepEqual(d.attemptLog, before.attemptLog);
    }
    // A log the archiver left to its TTL is kept at least as long as the restored row it belongs to.
    const heldUntil = Math.floor(Date.parse(report.until) / 1000) + DEFAULT_RETENTION.ttlSafetyMarginDays * 86_400;
    for (const d of [...terminal.values()].filter((t) => t.attemptLog.length === 2))
      for (const ttl of await attemptTtls(d.id)) assert.ok(ttl >= heldUntil, `${d.id}: ${ttl} < ${heldUntil}`);
    const bad = [...bySub.keys()][1]!;
    assert.equal(
      (await stack.api.get(`/v1/dead-letters?subscriptionId=${bad}&limit=100`)).body.items.length,
      60,
      'restored dead letters are listed again',
    );

    const twice: any = await stack.runtime.invoke('archiver', {
      action: 'restore',
      from: days[0],
      to: days[days.length - 1],
    });
    assert.deepEqual([twice.restored, twice.present], [0, 190], 'a second restore changes nothing');

    const held = await runArchive(deps, { budget: budget() });
    assert.deepEqual([held.objects, held.archived, held.dropped], [0, 0, 0], 'restored rows stay for the hold period');

    // Eight days later (past the 7-day hold): dropped again, without writing a second copy.
    const objectsBefore = await readArchive(stack.runtime.clients.s3);
    const later = await runArchive(
      { ...deps, clock: { ...systemClock, now: () => Date.now() + 8 * DAY_MS } },
      { budget: { deadlineMs: Date.now() + 8 * DAY_MS + 60_000 } },
    );
    assert.deepEqual([later.objects, later.dropped], [0, 190]);
    assert.ok((await Promise.all([...terminal.keys()].map(status))).every((s) => s === 404));
    const objectsAfter = await readArchive(stack.runtime.clients.s3);
    assert.deepEqual(
      objectsAfter.map((o) => o.key),
      objectsBefore.map((o) => o.key),
    );
    assert.ok(
      [...idCounts(objectsAfter).values()].every((n) => n === 1),
      'still exactly once',
    );
  });

  it('a restored delivery that is replayed is archived again as a new version; a restore then takes the newest', async () => {
    const days = [...new Set([...terminal.values()].map((d) => d.createdAt.slice(0, 10)))].sort();
    const bad = [...bySub.keys()][1]!;
    await stack.runtime.invoke('archiver', {
      action: 'restore',
      from: days[0],
      to: days[days.length - 1],
      subscriptionId: bad,
    });
    const id = bySub.get(bad)![0]!;
    stack.receiver.script('/arch-bad', [], { status: 200 });
    assert.equal((await stack.api.post(`/v1/deliveries/${id}/replay`)).status, 202);
    const replayed = await stack.waitForState(id, ['delivered']);
    const report = await runArchive(deps, { budget: budget() });
    assert.equal(report.objects, 1, 'only the changed row is archived; the unchanged restored rows are held');
    const versions = (await readArchive(stack.runtime.clients.s3))
      .flatMap((o) => o.records)
      .filter((r) => r.delivery.id === id);
    assert.deepEqual(versions.map((r) => r.delivery.state).sort(), ['delivered', 'failed']);
    await runArchive(
      { ...deps, clock: { ...systemClock, now: () => Date.now() + 8 * DAY_MS } },
      { budget: { deadlineMs: Date.now() + 8 * DAY_MS + 60_000 } },
    );
    await stack.runtime.invoke('archiver', {
      action: 'restore',
      from: days[0],
      to: days[days.length - 1],
      subscriptionId: bad,
    });
    const restored = (await stack.api.get(`/v1/deliveries/${id}`)).body;
    assert.equal(restored.state, 'delivered');
    assert.equal(restored.updatedAt, replayed.updatedAt);
    assert.equal(restored.attemptLog.length, 2);
  });

  it('a crash at any step of a batch loses nothing and duplicates nothing: the next run finishes the batch under the same key', async (t) => {
    stack.receiver.script('/arch-crash', [], { status: 200 });
    await stack.subscribe('/arch-crash', { eventTypes: ['arch.crash'] });
    const ids: string[] = [];
    for (let i = 0; i < 120; i += 20)
      ids.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, j) => stack.publish('arch.crash', { i: i + j })))).flatMap(
          (p) => p.deliveryIds,
        ),
      );
    await Promise.all(ids.map((id) => stack.waitForState(id, ['delivered'])));
    const small = { ...deps, archivePolicy: { ...deps.archivePolicy, batchSize: 10 } };

    /** `deps` whose `port.method` dies on its `nth` call, before or after doing its work: a process killed there. */
    const crashAt = <K extends 'manifests' | 'archive' | 'recovery'>(
      port: K,
      method: string,
      nth: number,
      when: 'before' | 'after',
    ): FunctionDeps<'archiver'> => {
      let calls = 0;
      const target = small[port] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const wrapped = new Proxy(target, {
        get: (obj, prop) => {
          const value = obj[prop as string];
          if (prop !== method || typeof value !== 'function')
            return typeof value === 'function' ? value.bind(obj) : value;
          return async (...args: unknown[]) => {
            const crash = ++calls === nth;
            if (crash && when === 'before') throw new Error(`simulated crash before ${port}.${method}`);
            const result = await value.apply(obj, args);
            if (crash) throw new Error(`simulated crash after ${port}.${method}`);
            return result;
          };
        },
      });
      return { ...small, [port]: wrapped };
    };
    const points: [string, FunctionDeps<'archiver'>][] = [
      ['after the manifest is written, before the object', crashAt('manifests', 'put', 2, 'after')],
      ['after the object is written, before it is verified', crashAt('archive', 'put', 2, 'after')],
      ['after verifying, before the batch is marked written', crashAt('manifests', 'setPhase', 2, 'before')],
      ['halfway through deleting the rows', crashAt('recovery', 'deleteArchived', 15, 'after')],
      ['after deleting the rows, before dropping the manifest', crashAt('manifests', 'delete', 2, 'before')],
    ];
    for (const [label, crashing] of points) {
      await assert.rejects(runArchive(crashing, { budget: budget() }), /simulated crash/, label);
      const counts = idCounts(await readArchive(stack.runtime.clients.s3));
      const dup = ids.filter((id) => (counts.get(id) ?? 0) > 1);
      assert.deepEqual(dup, [], `no duplicate after a crash ${label}`);
      t.diagnostic(
        `crash ${label}: ${ids.filter((id) => counts.has(id)).length} of ${ids.length} in the archive so far`,
      );
    }
    const final = await runArchive(small, { budget: budget() });
    assert.equal(final.kind, 'done');
    const counts = idCounts(await readArchive(stack.runtime.clients.s3));
    assert.deepEqual(
      ids.filter((id) => counts.get(id) !== 1),
      [],
      'every delivery archived exactly once',
    );
    assert.ok(
      (await Promise.all(ids.map(status))).every((s) => s === 404),
      'and every row deleted',
    );
    const manifests = await stack.runtime.clients.dynamodb.send(
      new ScanCommand({ TableName: stack.runtime.env.ARCHIVE_BATCHES_TABLE! }),
    );
    assert.equal(manifests.Count, 0);
  });
});

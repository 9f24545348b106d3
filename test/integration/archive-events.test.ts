/**
 * The events table under the archiver, on the real local runtime: bodies stored compressed with
 * the delivered-retention TTL, moved out by a dead letter; archiving never deletes an event (its
 * TTL does, for free), so a dead letter sharing an event with archived deliveries replays the
 * exact bytes; a restore keeps the events it finds as long as the restored rows, and puts back
 * those their TTL took.
 */
import assert from 'node:assert/strict';
import { DeleteItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { after, before, describe, it } from 'node:test';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { buildDeps } from '#adapters/function-deps.ts';
import { restoreArchive, runArchive } from '#app/archive/archival.ts';
import type { FunctionDeps } from '#app/deps.ts';
import { deadLetterEventTtl, DEFAULT_RETENTION, eventTtlFor } from '#domain/retention.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

const DAY_S = 86_400;
const N = 12;
/** Delivered rows are archivable at once; dead letters only when a run is given 0 days too. */
const ENV = {
  HOOKLINE_RETENTION_DELIVERED_DAYS: '0',
  // Delivered rows are archived here (off by default: TTL deletes them), so the archive has both kinds.
  HOOKLINE_ARCHIVE_DELIVERED: '1',
  HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0',
  HOOKLINE_ARCHIVE_BATCH_SIZE: '10',
};
const KEEP_DEAD_LETTERS = { HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '90' };
/** The retention the api and the sender run with (ENV). */
const RETENTION = { ...DEFAULT_RETENTION, deliveredDays: 0, deadLetterDays: 0, archiveDelivered: 1 };

describe('events under the archiver', () => {
  let stack: LocalStack;
  const subs: Record<string, string> = {};
  /** Event ids by group: `solo` goes to one subscription; `sharedA` and `sharedB` each to one that succeeds and to one that dead-letters. */
  const groups: Record<'solo' | 'sharedA' | 'sharedB', { eventId: string; deliveryIds: string[] }[]> = {
    solo: [],
    sharedA: [],
    sharedB: [],
  };
  const bodies = new Map<string, string>();
  /** Each event's TTL (epoch seconds) once its deliveries were terminal. */
  const ttls = new Map<string, number>();

  const archiverDeps = (env: Record<string, string> = {}): FunctionDeps<'archiver'> =>
    buildDeps(
      'archiver',
      { ...stack.runtime.env, ...env },
      { clients: stack.runtime.clients, metrics: stack.runtime.metrics, subscriptionCacheMs: 0 },
      ALL_FACTORIES,
    );
  const budget = () => ({ deadlineMs: Date.now() + 60_000 });
  const eventKey = (eventId: string) => ({ TableName: stack.runtime.env.EVENTS_TABLE!, Key: { id: { S: eventId } } });
  const row = async (eventId: string) =>
    (await stack.runtime.clients.dynamodb.send(new GetItemCommand({ ...eventKey(eventId), ConsistentRead: true })))
      .Item;
  const expiresAt = async (eventId: string) => Number((await row(eventId))?.expiresAt?.N);
  const allEvents = () => Object.values(groups).flat();
  const bySub = new Map<string, string>();
  const deliveryOf = (p: { deliveryIds: string[] }, sub: string) => p.deliveryIds.find((id) => bySub.get(id) === sub)!;

  before(async () => {
    stack = await startLocalStack({ env: ENV });
    stack.receiver.script('/ev-dl', [], { status: 422, body: 'nope' });
    subs.ok = (await stack.subscribe('/ev-ok', { eventTypes: ['ev.solo', 'ev.sharedA'] })).id;
    subs.okB = (await stack.subscribe('/ev-ok-b', { eventTypes: ['ev.sharedB'] })).id;
    subs.dl = (await stack.subscribe('/ev-dl', { eventTypes: ['ev.sharedA', 'ev.sharedB'] })).id;
    for (const group of ['solo', 'sharedA', 'sharedB'] as const) {
      groups[group] = await Promise.all(
        Array.from({ length: N }, (_, i) => stack.publish(`ev.${group}`, { group, i, price: 1.0, name: 'Zoë 🎉' })),
      );
    }
    for (const p of allEvents()) {
      for (const id of p.deliveryIds) {
        const d = await stack.waitForState(id, ['delivered', 'failed'], 30_000);
        bySub.set(id, d.subscriptionId);
        bodies.set(p.eventId, d.body);
      }
      ttls.set(p.eventId, await expiresAt(p.eventId));
    }
  });
  after(() => stack.stop());

  it('stores each body compressed beside its sha256, kept by the event TTL rule (eventTtlFor); a dead letter moves it out to its own', async () => {
    const item = (await row(groups.solo[0]!.eventId))!;
    assert.ok(item.bodyZ?.B instanceof Uint8Array);
    assert.ok(item.bodySha256?.S);
    assert.equal(item.body, undefined);
    for (const p of groups.solo) {
      const { giveUpAt } = await stack.delivery(p.deliveryIds[0]!);
      // The api has HOOKLINE_RETENTION_DELIVERED_DAYS 0 and archives delivered rows: the deadline + 0 + the 30-day net.
      assert.equal(ttls.get(p.eventId), eventTtlFor(Date.parse(giveUpAt), RETENTION));
      assert.equal(
        ttls.get(p.eventId),
        Math.floor(Date.parse(giveUpAt) / 1000) + RETENTION.ttlSafetyMarginDays * DAY_S,
      );
    }
    for (const p of [...groups.sharedA, ...groups.sharedB]) {
      const dl = await stack.delivery(deliveryOf(p, subs.dl!));
      const ok = await stack.delivery(p.deliveryIds.find((id) => id !== dl.id)!);
      assert.equal(dl.state, 'failed');
      // Never shortened: the later of publish's (the last deadline) and the dead letter's own.
      const lastGiveUpAt = Math.max(Date.parse(dl.giveUpAt), Date.parse(ok.giveUpAt));
      assert.equal(
        ttls.get(p.eventId),
        Math.max(eventTtlFor(lastGiveUpAt, RETENTION), deadLetterEventTtl(Date.parse(dl.updatedAt), RETENTION)),
        `${p.eventId}: the later of its deadline's and its dead letter's`,
      );
    }
  });

  it('archiving the delivered deliveries leaves every event to its TTL, and a dead letter sharing one replays its exact bytes', async () => {
    const report = await runArchive(archiverDeps(KEEP_DEAD_LETTERS), { budget: budget() });

    assert.equal(report.kind, 'done');
    assert.equal(report.archived, 3 * N, 'every delivered delivery');
    assert.equal('eventsDeleted' in report, false);
    for (const p of allEvents())
      assert.equal(await expiresAt(p.eventId), ttls.get(p.eventId), `${p.eventId} still there, its TTL unchanged`);

    const p = groups.sharedB[0]!;
    const dl = deliveryOf(p, subs.dl!);
    assert.equal((await stack.delivery(dl)).body, bodies.get(p.eventId));
    stack.receiver.script('/ev-dl', [], { status: 200 });
    assert.equal((await stack.api.post(`/v1/deliveries/${dl}/replay`)).status, 202);
    await stack.waitForState(dl, ['delivered']);
    const sent = stack.receiver.requests.filter((r) => r.path === '/ev-dl' && r.answeredWith === 200);
    assert.deepEqual(
      sent.map((r) => r.body),
      [bodies.get(p.eventId)],
    );
    stack.receiver.script('/ev-dl', [], { status: 422, body: 'nope' });
  });

  it('a restore extends the events it finds to the hold plus the margin, so the restored deliveries keep their bodies', async () => {
    // sharedB[0]'s TTL moved since: its dead letter was replayed, and a replay extends it too.
    const before = new Map(
      await Promise.all(groups.sharedB.map(async (p) => [p.eventId, await expiresAt(p.eventId)] as const)),
    );
    const day = new Date().toISOString().slice(0, 10);
    const report: any = await stack.runtime.invoke('archiver', {
      action: 'restore',
      from: day,
      to: day,
      subscriptionId: subs.ok,
    });
    assert.equal(report.restored, 2 * N, 'solo and sharedA; sharedB went to another subscription');
    const held = Math.floor(Date.parse(report.until) / 1000) + DEFAULT_RETENTION.ttlSafetyMarginDays * DAY_S;

    for (const p of [...groups.solo, ...groups.sharedA]) {
      const item = (await row(p.eventId))!;
      assert.ok(held > ttls.get(p.eventId)!, 'later than the TTL it had');
      assert.equal(Number(item.expiresAt!.N), held, `${p.eventId}: the hold plus the margin`);
      assert.equal(item.restored, undefined, 'no restore mark: nothing deletes events but their TTL');
      assert.ok(item.bodyZ?.B instanceof Uint8Array, 'still compressed');
      assert.equal((await stack.delivery(deliveryOf(p, subs.ok!))).body, bodies.get(p.eventId));
    }
    for (const p of groups.sharedB)
      assert.equal(await expiresAt(p.eventId), before.get(p.eventId), `${p.eventId} untouched`);
  });

  it('a restore puts back, compressed, an event its TTL took; archiving the dead letters too deletes no event', async () => {
    stack.receiver.script('/ev-ttl', [], { status: 200 });
    const sub = (await stack.subscribe('/ev-ttl', { eventTypes: ['ev.ttl'] })).id;
    const published = await Promise.all(
      Array.from({ length: 5 }, (_, i) => stack.publish('ev.ttl', { i, name: 'Zoë 🎉' })),
    );
    const ids = published.flatMap((p) => p.deliveryIds);
    const sent = new Map(
      (await Promise.all(ids.map((id) => stack.waitForState(id, ['delivered'])))).map((d) => [d.id, d.body]),
    );

    const archived = await runArchive(archiverDeps(), { budget: budget() });
    assert.equal(archived.kind, 'done');
    assert.equal(
      archived.archived,
      5 + 2 * N,
      'the new deliveries, and the dead letters of both shared groups (one of them replayed and delivered since)',
    );
    for (const p of [...allEvents(), ...published]) assert.ok(await row(p.eventId), `${p.eventId} still there`);

    // What DynamoDB TTL does once the events' time has passed.
    for (const p of published) await stack.runtime.clients.dynamodb.send(new DeleteItemCommand(eventKey(p.eventId)));
    const day = new Date().toISOString().slice(0, 10);
    const restored = await restoreArchive(archiverDeps(), { from: day, to: day, subscriptionId: sub });

    assert.equal(restored.restored, 5);
    const held = Math.floor(Date.parse(restored.until) / 1000) + DEFAULT_RETENTION.ttlSafetyMarginDays * DAY_S;
    for (const p of published) {
      const item = (await row(p.eventId))!;
      assert.ok(item.bodyZ?.B instanceof Uint8Array, 'put back compressed');
      assert.equal(Number(item.expiresAt!.N), held);
      assert.equal(item.restored, undefined);
    }
    for (const id of ids)
      assert.equal((await stack.delivery(id)).body, sent.get(id), `${id} is back with its exact body`);
  });
});

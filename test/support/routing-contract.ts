/**
 * What the routing index must do, as cases run against the in-memory stores
 * (test/unit/support/memory-routing.test.ts) and the DynamoDB adapters on a real DynamoDB API
 * (test/integration/routing-contract.test.ts; in CI on dynalite and on Amazon's DynamoDB Local):
 * the route store's own rules (lookups by audience and segment, version-conditional writes,
 * intents, the build status), the subscription store's routing counts and tenant listing, and the
 * routing service over both (app/subscriptions/routing.ts): changes, a writer that stopped, and
 * the build of a table from before the index.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Audience } from '#domain/audience.ts';
import { resolveTargets, routeTargetOf, typeSegments, type RouteEntry } from '#domain/routing.ts';
import type { SealedSecrets, Subscription } from '#domain/types.ts';

/** aSubscription's secrets are sealed (sealedForTest): what SubscriptionStore.create takes. */
type Sealed = Subscription & { readonly secrets: SealedSecrets };
import type { RouteStore } from '#ports/route-store.ts';
import type { SubscriptionStore } from '#ports/subscription-store.ts';
import {
  buildRoutes,
  repairRoutes,
  requireRoutesBuilt,
  ROUTE_INTENT_GRACE_SECONDS,
  routedChange,
} from '#app/subscriptions/routing.ts';
import { TemporarilyUnavailableError } from '#app/errors.ts';
import { aSubscription, FakeClock } from './fakes.ts';

export interface RoutingUnderTest {
  readonly routes: RouteStore;
  readonly subscriptions: SubscriptionStore;
  /** Writes a row as a version before the routing index did: no routeVersion, no routedPatterns. */
  seedRowFromBefore(subscription: Subscription): Promise<void>;
  dispose(): Promise<void>;
}

/** How many cases the contract has: each opens its own stores, which the runners check, so a lost case shows. */
export const ROUTING_CONTRACT_CASES = 10;

const entry = (id: string, pattern: string, version: number, over: Partial<Subscription> = {}): RouteEntry => ({
  pattern,
  version,
  live: true,
  target: routeTargetOf(aSubscription({ id, eventTypes: [pattern], ...over })),
});

/** A subscription as its creation routes it: at version 1, its event types routed. */
const routedSubscription = (over: Partial<Subscription> & Pick<Subscription, 'id' | 'eventTypes'>): Subscription =>
  aSubscription({ routeVersion: 1, routedPatterns: over.eventTypes, ...over });
/** acme's subscription to `invoice.*`, the one most cases follow. */
const ACME_INVOICES = routedSubscription({ id: 'sub_a', tenantId: 'acme', eventTypes: ['invoice.*'] });

/** Creates `sub` as the service does: its row and its routing entries, in one routed change. */
async function createRouted(
  deps: Parameters<typeof routedChange>[0] & { readonly subscriptions: SubscriptionStore },
  sub: Subscription,
): Promise<void> {
  await routedChange(deps, sub.id, async () => {
    await deps.subscriptions.create(sub as Sealed);
    return sub;
  });
}

export function routingContract(label: string, open: () => Promise<RoutingUnderTest>): void {
  const withStores = (body: (s: RoutingUnderTest, clock: FakeClock) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened, new FakeClock());
    } finally {
      await opened.dispose();
    }
  };
  /** Who an event of `type` for `audience` reaches, by id, as publish asks. */
  const reached = async (routes: RouteStore, audience: Audience, type: string) =>
    resolveTargets(await routes.lookup(audience, typeSegments(type)), audience, type).map((t) => t.id);
  const acme: Audience = { kind: 'tenant', tenantId: 'acme' };
  const globex: Audience = { kind: 'tenant', tenantId: 'globex' };

  describe(`routing contract: ${label}`, () => {
    it(
      "looks entries up by audience and segment: a tenant's never reach another tenant or the producer; every tenant's for all",
      withStores(async ({ routes }) => {
        await routes.put([
          entry('sub_a1', 'invoice.*', 1, { tenantId: 'acme' }),
          entry('sub_a2', 'invoice.paid', 1, { tenantId: 'acme' }),
          entry('sub_a3', '*', 1, { tenantId: 'acme' }),
          entry('sub_a4', 'order.paid', 1, { tenantId: 'acme' }),
          entry('sub_g1', 'invoice.*', 1, { tenantId: 'globex' }),
          entry('sub_p1', 'invoice.paid', 1),
        ]);

        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), ['sub_a1', 'sub_a2', 'sub_a3']);
        assert.deepEqual(await reached(routes, acme, 'invoice.line.added'), ['sub_a1', 'sub_a3']);
        assert.deepEqual(await reached(routes, acme, 'order.paid'), ['sub_a3', 'sub_a4']);
        assert.deepEqual(await reached(routes, globex, 'invoice.paid'), ['sub_g1']);
        assert.deepEqual(await reached(routes, { kind: 'tenant', tenantId: 'initech' }, 'invoice.paid'), []);
        assert.deepEqual(await reached(routes, { kind: 'producer' }, 'invoice.paid'), ['sub_p1']);
        assert.deepEqual(await reached(routes, { kind: 'all' }, 'invoice.paid'), [
          'sub_a1',
          'sub_a2',
          'sub_a3',
          'sub_g1',
          'sub_p1',
        ]);
        // Only the two segments were read: order.paid's entry is not among invoice.paid's candidates.
        assert.ok(!(await routes.lookup(acme, typeSegments('invoice.paid'))).some((e) => e.target.id === 'sub_a4'));
      }),
    );

    it(
      'keeps the newest version of an entry: an older write arriving late changes nothing',
      withStores(async ({ routes }) => {
        await routes.put([entry('sub_a', 'invoice.*', 3, { tenantId: 'acme', state: 'disabled' })]);
        await routes.put([entry('sub_a', 'invoice.*', 2, { tenantId: 'acme' })]);
        await routes.put([entry('sub_a', 'invoice.*', 3, { tenantId: 'acme' })]);

        const held = await routes.lookup(acme, ['invoice']);
        assert.equal(held.length, 1);
        assert.equal(held[0]!.version, 3);
        assert.equal(held[0]!.target.receives, false, 'the first write at version 3 stands');
        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), []);
      }),
    );

    it(
      'notes, lists (oldest first, before a time) and clears intents, two of one subscription apart',
      withStores(async ({ routes }) => {
        const first = await routes.noteIntent('sub_a', '2024-05-01T12:00:00.000Z');
        const second = await routes.noteIntent('sub_a', '2024-05-01T12:00:01.000Z');
        await routes.noteIntent('sub_b', '2024-05-01T12:00:05.000Z');
        assert.notEqual(first.key, second.key);

        assert.deepEqual(await routes.intents('2024-05-01T12:00:02.000Z', 10), [first, second]);
        assert.deepEqual(await routes.intents('2024-05-01T12:00:02.000Z', 1), [first]);
        await routes.clearIntent(first);
        assert.deepEqual(await routes.intents('2024-05-01T12:00:02.000Z', 10), [second]);
      }),
    );

    it(
      "lists many subscriptions' intents oldest first however they are stored, at most `limit`, and clears each",
      withStores(async ({ routes }) => {
        // Noted out of time order, over more subscriptions than a store has partitions.
        const noted = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            routes.noteIntent(`sub_${i}`, `2024-05-01T12:00:${String((i * 7) % 40).padStart(2, '0')}.000Z`),
          ),
        );
        const oldestFirst = [...noted].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
        assert.deepEqual(await routes.intents('2024-05-01T12:01:00.000Z', 5), oldestFirst.slice(0, 5));
        assert.deepEqual(await routes.intents('2024-05-01T12:01:00.000Z', 100), oldestFirst);
        for (const intent of noted) await routes.clearIntent(intent);
        assert.deepEqual(await routes.intents('9999', 100), []);
      }),
    );

    it(
      'records the build status, and a built index stays built',
      withStores(async ({ routes }) => {
        assert.equal(await routes.status(), undefined);
        await routes.setStatus({ kind: 'building', indexed: 100, cursor: 'c1' });
        assert.deepEqual(await routes.status(), { kind: 'building', indexed: 100, cursor: 'c1' });
        await routes.setStatus({ kind: 'built', at: '2024-05-01T12:00:00.000Z', indexed: 150 });
        await routes.setStatus({ kind: 'building', indexed: 120, cursor: 'c2' });
        assert.deepEqual(await routes.status(), { kind: 'built', at: '2024-05-01T12:00:00.000Z', indexed: 150 });
      }),
    );

    it(
      'routes a subscription from its creation, follows a change of its event types, and prunes the patterns it left',
      withStores(async ({ routes, subscriptions }, clock) => {
        const deps = { routes, subscriptions, clock };
        const sub = ACME_INVOICES;
        await createRouted(deps, sub);
        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), ['sub_a']);

        const updated = await routedChange(deps, sub.id, () =>
          subscriptions.update(sub.id, { eventTypes: ['order.*', 'user.created'] }, clock.iso()),
        );

        assert.equal(updated!.routeVersion, 2);
        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), [], 'the old pattern is a tombstone');
        assert.deepEqual(await reached(routes, acme, 'order.shipped'), ['sub_a']);
        assert.deepEqual(await reached(routes, acme, 'user.created'), ['sub_a']);
        assert.deepEqual(await reached(routes, globex, 'order.shipped'), []);
        assert.deepEqual(
          (await subscriptions.get(sub.id))!.routedPatterns,
          ['order.*', 'user.created'],
          'invoice.* pruned once its tombstone was written',
        );
        assert.deepEqual(await routes.intents('9999', 10), [], 'each change cleared its intent');
      }),
    );

    it(
      'takes a disabled or deleted subscription out of fan-out, keeps a paused one in, and a resumed one back',
      withStores(async ({ routes, subscriptions }, clock) => {
        const deps = { routes, subscriptions, clock };
        const sub = routedSubscription({ id: 'sub_a', eventTypes: ['*'] });
        await createRouted(deps, sub);
        const producer: Audience = { kind: 'producer' };
        const state = async (s: Subscription['state']) => {
          await routedChange(deps, sub.id, () => subscriptions.setState(sub.id, s, 'test', clock.iso()));
          return reached(routes, producer, 'a.b');
        };

        assert.deepEqual(await state('paused'), ['sub_a']);
        assert.deepEqual(await state('disabled'), []);
        assert.deepEqual(await state('active'), ['sub_a']);
        assert.deepEqual(await state('deleted'), []);
      }),
    );

    it(
      'finishes a change whose writer stopped after the row, once its intent is older than the grace',
      withStores(async ({ routes, subscriptions }, clock) => {
        const deps = { routes, subscriptions, clock };
        const sub = ACME_INVOICES;
        // The writer noted its intent and wrote the row, then stopped before the entries.
        await routes.noteIntent(sub.id, clock.iso());
        await subscriptions.create(sub as Sealed);
        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), []);

        assert.equal(await repairRoutes(deps), 0, 'a writer may still be at work within the grace');
        clock.advance((ROUTE_INTENT_GRACE_SECONDS + 1) * 1000);
        assert.equal(await repairRoutes(deps), 1);

        assert.deepEqual(await reached(routes, acme, 'invoice.paid'), ['sub_a']);
        assert.equal(await repairRoutes(deps), 0, 'the intent was cleared');
      }),
    );

    it(
      'builds the index of a table from before it, resumably, adopting each row once, and refuses publish until built',
      withStores(async ({ routes, subscriptions, seedRowFromBefore }, clock) => {
        const deps = { routes, subscriptions, clock };
        for (let i = 0; i < 130; i++)
          await seedRowFromBefore(
            aSubscription({
              id: `sub_${String(i).padStart(3, '0')}`,
              tenantId: i % 2 ? 'acme' : 'globex',
              eventTypes: [i % 3 ? 'invoice.*' : '*'],
            }),
          );

        // No time at all: the first page is done, then the budget is spent.
        const partial = await buildRoutes(deps, -1);
        assert.equal(partial.kind, 'building');
        await assert.rejects(
          requireRoutesBuilt(deps, -1),
          (e: unknown) => e instanceof TemporarilyUnavailableError && e.retryAfterSeconds > 0,
        );

        const built = await buildRoutes(deps, Number.POSITIVE_INFINITY);
        assert.equal(built.kind, 'built');
        assert.equal(built.indexed, 130);
        await requireRoutesBuilt(deps, 0);
        assert.equal((await reached(routes, acme, 'invoice.paid')).length, 65);
        assert.equal((await reached(routes, globex, 'invoice.paid')).length, 65);
        const row = await subscriptions.get('sub_007');
        assert.equal(row!.routeVersion, 1);
        assert.deepEqual(row!.routedPatterns, ['invoice.*']);
        assert.equal(await subscriptions.adoptRouting('sub_007'), undefined, 'a routed row is adopted once');
      }),
    );

    it(
      "lists a tenant's subscriptions newest first from its key, in pages, and nobody else's",
      withStores(async ({ subscriptions }) => {
        for (let i = 0; i < 7; i++) {
          const createdAt = new Date(Date.parse('2024-05-01T12:00:00.000Z') + i * 1000).toISOString();
          await subscriptions.create(
            aSubscription({ id: `sub_${i}`, tenantId: i < 5 ? 'acme' : 'globex', createdAt }) as Sealed,
          );
        }
        await subscriptions.create(aSubscription({ id: 'sub_producer' }) as Sealed);

        const ids: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await subscriptions.list({ tenantId: 'acme', limit: 2, ...(cursor ? { cursor } : {}) });
          ids.push(...page.items.map((s) => s.id));
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        assert.deepEqual(ids, ['sub_4', 'sub_3', 'sub_2', 'sub_1', 'sub_0']);
        assert.equal(
          (await subscriptions.list({ limit: 50 })).items.length,
          8,
          "the admin's listing holds every subscription",
        );
      }),
    );
  });
}

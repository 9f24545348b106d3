import { prunablePatterns, routeEntriesOf, type Routed } from '#domain/routing.ts';
import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import type { RouteIndexStatus, RouteStore } from '#ports/route-store.ts';
import type { Deps } from '#app/deps.ts';
import { TemporarilyUnavailableError } from '#app/errors.ts';

/**
 * Keeping the routing index true to the subscriptions. DynamoDB writes one item at a time here
 * (the emulators have no transactions), so a routing change is three steps, each safe to stop
 * after: an intent is noted; the subscription row is written, counting `routeVersion` up; its
 * entries are written at that version (conditional: an older version never overwrites a newer
 * one), then the intent is cleared. The row is the truth and the entries follow it: a writer
 * that stopped in between left an intent, and the sweeper finishes it from the row
 * (`repairRoutes`). Until then fan-out sees the subscription as it was before the change, the
 * same as within the index's cache period.
 */
export type RoutingDeps = Pick<Deps, 'subscriptions' | 'routes' | 'clock'>;

/** An intent this old has lost its writer (the api's 29 s timeout, and a margin): the sweeper finishes it. */
export const ROUTE_INTENT_GRACE_SECONDS = 60;
/** Intents the sweeper finishes per run at most; more wait for the next run. */
const INTENTS_PER_SWEEP = 100;

/** Runs a write of a subscription that may change its routing (`write` answers the row as written, or undefined when it changed nothing), then routes it. */
export async function routedChange<T extends Subscription | undefined>(
  deps: RoutingDeps,
  id: string,
  write: () => Promise<T>,
): Promise<T> {
  const intent = await deps.routes.noteIntent(id, iso(deps.clock.now()));
  const written = await write();
  if (written) await syncRoutes(deps, written);
  await deps.routes.clearIntent(intent);
  return written;
}

/** Writes the subscription's entries as of its `routeVersion`, then prunes the patterns left as tombstones. */
async function syncRoutes(deps: Pick<Deps, 'subscriptions' | 'routes'>, subscription: Subscription): Promise<void> {
  // A row from before the index that nothing has counted yet: buildRoutes adopts it.
  if (subscription.routeVersion === undefined) return;
  const routed: Routed = {
    ...subscription,
    routeVersion: subscription.routeVersion,
    routedPatterns: subscription.routedPatterns ?? [],
  };
  await deps.routes.put(routeEntriesOf(routed));
  await deps.subscriptions.pruneRoutedPatterns(routed.id, routed.routeVersion, prunablePatterns(routed));
}

/** The sweeper's part: finishes the routing of every change whose writer stopped between the row and its entries. */
export async function repairRoutes(deps: RoutingDeps): Promise<number> {
  const intents = await deps.routes.intents(
    iso(deps.clock.now() - ROUTE_INTENT_GRACE_SECONDS * 1000),
    INTENTS_PER_SWEEP,
  );
  for (const intent of intents) {
    const current = await deps.subscriptions.get(intent.subscriptionId);
    if (current)
      await syncRoutes(
        deps,
        current.routeVersion === undefined ? ((await deps.subscriptions.adoptRouting(current.id)) ?? current) : current,
      );
    await deps.routes.clearIntent(intent);
  }
  return intents.length;
}

/** Subscriptions read per page while building the index. */
const BUILD_PAGE = 100;

/**
 * Builds the index of a deployment whose subscriptions were stored before it: every row no
 * change has routed yet is adopted (routeVersion 1, its event types as its patterns) and its
 * entries written, a page at a time, the walk's place kept in the status so a run that stops
 * (its budget, a crash) resumes. Rows routed already are left as they are. A fresh deployment's
 * walk finds nothing and is built at once.
 */
export async function buildRoutes(deps: RoutingDeps, budgetMs: number): Promise<RouteIndexStatus> {
  const started = deps.clock.now();
  let status = (await deps.routes.status()) ?? { kind: 'building', indexed: 0 };
  while (status.kind === 'building') {
    if (deps.clock.now() - started > budgetMs) return status;
    const page = await deps.subscriptions.scanPage({
      limit: BUILD_PAGE,
      ...(status.cursor ? { cursor: status.cursor } : {}),
    });
    let indexed = status.indexed;
    for (const row of page.items) {
      if (row.routeVersion !== undefined) continue;
      const adopted = await deps.subscriptions.adoptRouting(row.id);
      if (adopted) await syncRoutes(deps, adopted);
      indexed++;
    }
    status = page.nextCursor
      ? { kind: 'building', indexed, cursor: page.nextCursor }
      : { kind: 'built', at: iso(deps.clock.now()), indexed };
    await deps.routes.setStatus(status);
  }
  return status;
}

/** Stores whose index this container has seen built: a built index stays built, so each container asks once. */
const seenBuilt = new WeakSet<RouteStore>();

/**
 * Publish routes through the index only once it holds every subscription: until then an event
 * would miss the subscriptions not indexed yet, silently. So the first publish of a container
 * asks, builds for up to `budgetMs` if it must (a fresh deployment: at once), and otherwise
 * refuses with a 503 the producer (or the ingest queue) retries, while the sweeper goes on building.
 */
export async function requireRoutesBuilt(deps: RoutingDeps, budgetMs: number): Promise<void> {
  if (seenBuilt.has(deps.routes)) return;
  const status = await buildRoutes(deps, budgetMs);
  if (status.kind === 'built') {
    seenBuilt.add(deps.routes);
    return;
  }
  throw new TemporarilyUnavailableError(
    `the routing index is being built from the subscriptions stored before it (${status.indexed} indexed so far); nothing was stored, publish again shortly`,
    30,
  );
}

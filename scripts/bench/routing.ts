import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { encryptSecrets } from '#adapters/aes-gcm-secrets.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { TABLES } from '#config/topology.ts';
import { PAGE_LIMIT } from '#app/schema/common.ts';
import { audienceOf } from '#domain/audience.ts';
import { resolveTargets, routeEntriesOf, typeSegments } from '#domain/routing.ts';
import type { SealedSecrets, Subscription } from '#domain/types.ts';
import { createTableInput } from '#local/provision.ts';
import { table } from './benchmarks-file.ts';
import { SdkMeter } from './sdk-meter.ts';
import { fmt, percentile, pool } from './stats.ts';

/** The targets: routing reads per published event, and a tenant's listing page. */
export const ROUTING_RRU_TARGET = 2;
export const LISTING_RRU_TARGET = 5;

export interface RoutingPlan {
  readonly subscriptions: number;
  readonly tenants: number;
  /** Events looked up, each with a cold cache (what a container pays once per key and cache period). */
  readonly events: number;
}

export interface RoutingRun extends RoutingPlan {
  readonly entries: number;
  readonly seedSeconds: number;
  /** Read units of each event's lookup (its two keys), cold. */
  readonly eventRru: readonly number[];
  readonly matched: readonly number[];
  readonly lookupMs: readonly number[];
  /** Read units of one key's query: what one cache refresh of one (audience, segment) reads. */
  readonly keyRru: readonly number[];
  /** The whole-table consistent scan fan-out did before: what every cache refresh of every container read. */
  readonly scanRru: number;
  readonly scanSeconds: number;
  /** A tenant's first listing page (the API's default size), from its index. */
  readonly listingRru: readonly number[];
  readonly listingItems: number;
  /** The same page as the filtered scan it replaces would have read it: pages of the table until the tenant's items fill one. */
  readonly filteredScanRru: number;
  /** A publish to every tenant (audience all, admin only): its two keys of the bySegment index. */
  readonly broadcastRru: number;
  readonly broadcastMatched: number;
}

const SEGMENTS = [
  'invoice',
  'order',
  'customer',
  'payment',
  'refund',
  'shipment',
  'subscription',
  'user',
  'product',
  'coupon',
];
const ACTIONS = ['created', 'updated', 'paid', 'deleted', 'shipped'];

/** A repeatable sequence (mulberry32), so every run seeds the same subscriptions. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One subscription's patterns, mixed as a platform's are: half exact types, a third `segment.*`,
 * the rest `*`; one to three of them.
 */
function patternsFor(next: () => number): string[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const count = 1 + Math.floor(next() * 3);
  const patterns = new Set<string>();
  for (let i = 0; i < count; i++) {
    const kind = next();
    patterns.add(kind < 0.5 ? `${pick(SEGMENTS)}.${pick(ACTIONS)}` : kind < 0.85 ? `${pick(SEGMENTS)}.*` : '*');
  }
  return [...patterns];
}

/** Secrets as KMS seals them on AWS: the encrypted data key (184 bytes) beside the AES-GCM parts, so rows are their deployed size. */
function kmsSealed(id: string): SealedSecrets {
  return {
    scheme: 'kms-v1',
    key: randomBytes(184).toString('base64'),
    ...encryptSecrets(randomBytes(32), 'kms-v1', id, [`whsec_${randomBytes(32).toString('base64')}`]),
  };
}

function subscriptionOf(i: number, tenants: number, next: () => number): Subscription & { secrets: SealedSecrets } {
  const id = `sub_${i.toString(36).padStart(6, '0')}${randomBytes(6).toString('base64url')}`;
  const eventTypes = patternsFor(next);
  const at = new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
  return {
    id,
    url: `https://hooks.tenant-${i % tenants}.example.com/webhooks/${id}`,
    eventTypes,
    tenantId: `tenant-${String(i % tenants).padStart(4, '0')}`,
    description: `endpoint ${i}`,
    state: 'active',
    stateChangedAt: at,
    secrets: kmsSealed(id),
    routeVersion: 1,
    routedPatterns: eventTypes,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * The routing index at scale, on the real adapters: `subscriptions` over `tenants`, each stored
 * and routed through DynamoDbSubscriptionStore and DynamoDbRouteStore on an in-memory dynalite,
 * then every read metered by the consumed capacity the emulator reports (DynamoDB's own rules:
 * 4 KB a read unit, half for an eventually consistent read). No cache: each lookup is what a
 * container pays once per key and cache period.
 */
export async function measureRouting(plan: RoutingPlan): Promise<RoutingRun> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const newClient = () =>
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  // Seeding goes through a client of its own: the meter reads every indexed item around each write, which seeding does not need.
  const seedClient = newClient();
  const client = newClient();
  const meter = new SdkMeter(endpoint);
  meter.attach(client, new SQSClient({ region: 'us-east-1' }));
  const storesOn = (c: DynamoDBClient) => {
    const db = documentClient(c);
    return {
      subscriptions: new DynamoDbSubscriptionStore(db, TABLES.subscriptions.localName, 0),
      routes: new DynamoDbRouteStore(db, TABLES.routes.localName, 0),
    };
  };
  try {
    for (const def of [TABLES.subscriptions, TABLES.routes])
      await seedClient.send(new CreateTableCommand(createTableInput(def)));
    const next = random(22);
    const seeded = Array.from({ length: plan.subscriptions }, (_, i) => subscriptionOf(i, plan.tenants, next));
    const seeding = storesOn(seedClient);
    const seedStarted = Date.now();
    let entries = 0;
    await pool(seeded.length, 16, async (i) => {
      const sub = seeded[i]!;
      await seeding.subscriptions.create(sub);
      const routed = routeEntriesOf({ ...sub, routeVersion: 1, routedPatterns: sub.eventTypes });
      entries += routed.length;
      await seeding.routes.put(routed);
    });
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const { subscriptions, routes } = storesOn(client);

    const readUnits = () => Object.entries(meter.reset().calls).reduce((sum, [, c]) => sum + c.readUnits, 0);
    meter.reset();
    const eventRru: number[] = [];
    const matched: number[] = [];
    const lookupMs: number[] = [];
    for (let e = 0; e < plan.events; e++) {
      const tenantId = `tenant-${String(Math.floor(next() * plan.tenants)).padStart(4, '0')}`;
      const type = `${SEGMENTS[Math.floor(next() * SEGMENTS.length)]}.${ACTIONS[Math.floor(next() * ACTIONS.length)]}`;
      const audience = audienceOf({ tenantId });
      const started = performance.now();
      const found = await routes.lookup(audience, typeSegments(type));
      lookupMs.push(performance.now() - started);
      matched.push(resolveTargets(found, audience, type).length);
      eventRru.push(readUnits());
    }
    const keyRru: number[] = [];
    for (let k = 0; k < Math.min(plan.events, 200); k++) {
      await routes.lookup(audienceOf({ tenantId: `tenant-${String(k % plan.tenants).padStart(4, '0')}` }), [
        k % 3 === 0 ? '*' : SEGMENTS[k % SEGMENTS.length]!,
      ]);
      keyRru.push(readUnits());
    }

    const broadcast = await routes.lookup({ kind: 'all' }, typeSegments('invoice.paid'));
    const broadcastMatched = resolveTargets(broadcast, { kind: 'all' }, 'invoice.paid').length;
    const broadcastRru = readUnits();

    const listingRru: number[] = [];
    let listingItems = 0;
    for (let t = 0; t < Math.min(20, plan.tenants); t++) {
      listingItems = (
        await subscriptions.list({ tenantId: `tenant-${String(t).padStart(4, '0')}`, limit: PAGE_LIMIT.default })
      ).items.length;
      listingRru.push(readUnits());
    }

    // What it replaces: fan-out's consistent scan of every row, and the filtered scan of a tenant's listing
    // (every page read whole until the tenant's rows fill one, with 1 in `tenants` rows the tenant's).
    const scanStarted = Date.now();
    await subscriptions.all();
    const scanSeconds = (Date.now() - scanStarted) / 1000;
    const scanRru = readUnits();
    const filteredScanRru = (scanRru / 2) * Math.min(1, (PAGE_LIMIT.default * plan.tenants) / plan.subscriptions);
    return {
      ...plan,
      entries,
      seedSeconds,
      eventRru,
      matched,
      lookupMs,
      keyRru,
      scanRru,
      scanSeconds,
      listingRru,
      listingItems,
      filteredScanRru,
      broadcastRru,
      broadcastMatched,
    };
  } finally {
    meter.close();
    client.destroy();
    seedClient.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export function renderRouting(r: RoutingRun): string {
  const perEvent = mean(r.eventRru);
  const listing = mean(r.listingRru);
  const verdict = (value: number, target: number) => (value <= target ? 'met' : '**not met**');
  return [
    `### Fan-out routing: ${r.subscriptions.toLocaleString('en-US')} subscriptions over ${r.tenants.toLocaleString('en-US')} tenants`,
    '',
    `Each subscription has 1 to 3 patterns (half exact types, a third \`segment.*\`, the rest \`*\`, over ${SEGMENTS.length} segments): ${r.entries.toLocaleString('en-US')} routing entries, ` +
      `seeded through the real stores in ${fmt(r.seedSeconds, 0)} s. ${r.events} events of random tenants and types were looked up with no cache (each lookup is what a container reads once per key and 5 s cache period). ` +
      "Read units are the consumed capacity dynalite reports under DynamoDB's rules (4 KB a unit, half for an eventually consistent read; the rows are their deployed size, KMS-sealed secrets included).",
    '',
    table(
      ['figure', 'value', 'target'],
      [
        [
          'read units per published event (two keys), mean / p99 / max',
          `${fmt(perEvent, 2)} / ${fmt(percentile(r.eventRru, 99), 1)} / ${fmt(Math.max(...r.eventRru), 1)}`,
          `≤ ${ROUTING_RRU_TARGET}: ${verdict(perEvent, ROUTING_RRU_TARGET)}`,
        ],
        ['subscriptions an event reached, mean / max', `${fmt(mean(r.matched), 1)} / ${Math.max(...r.matched)}`, ''],
        [
          'lookup time on this machine, p50 / p99',
          `${fmt(percentile(r.lookupMs, 50), 1)} / ${fmt(percentile(r.lookupMs, 99), 1)} ms`,
          '',
        ],
        ["read units per cache refresh of one key (an audience's segment), mean", fmt(mean(r.keyRru), 2), ''],
        [
          `the consistent scan of every subscription it replaces (every refresh, every container), ${fmt(r.scanSeconds, 1)} s here`,
          fmt(r.scanRru, 0),
          '',
        ],
        [
          `a tenant's listing page (${r.listingItems} of its subscriptions, the API's default of ${PAGE_LIMIT.default}), from the byTenant index`,
          fmt(listing, 2),
          `≤ ${LISTING_RRU_TARGET}: ${verdict(listing, LISTING_RRU_TARGET)}`,
        ],
        [
          "the same page as the filtered scan it replaces (modelled from the scan: the share of the table read before one tenant's rows fill a page)",
          fmt(r.filteredScanRru, 0),
          '',
        ],
        [
          `a publish to every tenant (audience all, admin only; reached ${r.broadcastMatched.toLocaleString('en-US')})`,
          fmt(r.broadcastRru, 0),
          '',
        ],
      ],
    ),
    '',
    `At $0.125 per million read units that is $${fmt(perEvent * 0.125, 3)} per million events published with a cold cache (less with the cache), where the scan read ${fmt(r.scanRru, 0)} units per container every 5 s whatever the traffic. ` +
      "A broadcast reads every audience's entries under its type's segment and `*`: its cost grows with the subscriptions it may reach, which it must enqueue anyway.",
  ].join('\n');
}

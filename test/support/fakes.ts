/**
 * In-memory stand-ins for the ports, for service unit tests. Each write honours the same
 * condition its DynamoDB adapter puts on the conditional write, so a service that relies on a
 * condition (a write another copy got to first, a raced reschedule) behaves here as it does against the table. The
 * delivery store is shared with the benchmark and lives in memory-delivery-store.ts.
 */
import { fanOut } from '#app/publish/fan-out.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '#domain/retry-policy.ts';
import { STATE } from '#domain/states.ts';
import { DEFAULT_IN_FLIGHT_WAIT_SECONDS, DEFAULT_SWEEP_GRACE_SECONDS } from '#config/topology.ts';
import { SLOW_LANE } from '#domain/slow-lane.ts';
import type {
  AttemptRecord,
  Delivery,
  EventRecord,
  SealedSecrets,
  Subscription,
  SubscriptionState,
} from '#domain/types.ts';
import { encryptSecrets } from '#adapters/aes-gcm-secrets.ts';
import { LocalKeySecretCipher } from '#adapters/local-key-secret-cipher.ts';
import { decodeDeliveryMessages } from '#adapters/delivery-message-codec.ts';
import type { Deps } from '#app/deps.ts';
import type { AttemptStore } from '#ports/attempt-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { DeliveryMessage, DeliveryQueue } from '#ports/delivery-queue.ts';
import type { EventStore, EventSummary, PutEventResult } from '#ports/event-store.ts';
import type {
  EventLogEntry,
  EventLogRequest,
  IngestManifest,
  IngestManifestStore,
  ManifestWatermark,
} from '#ports/ingest-manifest-store.ts';
import { encodeCursor } from '#ports/page.ts';
import { decodeLogCursor, logEntry, matchesLog } from '#adapters/dynamodb-ingest-manifest-store.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { RotatedSecrets, SubscriptionChange, SubscriptionStore } from '#ports/subscription-store.ts';
import { MemoryMetrics } from '#local/memory-metrics.ts';
import { InMemoryDeliveryStore } from './memory-delivery-store.ts';
import { InMemorySendRateCounters } from './memory-stores.ts';
import { InMemoryRouteStore, SyncedRouteStore } from './memory-route-store.ts';
import { offsetPage as page } from './offset-page.ts';

export { InMemoryDeliveryStore, InMemoryRouteStore };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const copy = <T>(value: T): T => structuredClone(value);

/** A clock that only moves when told to; `randomBytes` counts up so ids are distinct and repeatable. */
export class FakeClock implements Clock {
  private counter = 0;
  constructor(
    public nowMs = Date.parse('2024-05-01T12:00:00.000Z'),
    public randomValue = 0.5,
  ) {}
  now(): number {
    return this.nowMs;
  }
  random(): number {
    return this.randomValue;
  }
  randomBytes(size: number): Uint8Array {
    this.counter++;
    return Uint8Array.from({ length: size }, (_, i) => (this.counter + i) & 0xff);
  }
  advance(ms: number): void {
    this.nowMs += ms;
  }
  /** Moves on by `ms` at once, yielding to whatever else is ready. */
  async sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.nowMs += Math.max(0, ms);
  }
  iso(): string {
    return new Date(this.nowMs).toISOString();
  }
}

/**
 * The events table as DynamoDbEventStore keeps it: `expiresAt` holds each row's TTL (epoch
 * seconds, as its writer gave it). A row seeded straight into `items` has no TTL, and
 * extendRetention leaves it without one, as the table does a row without `expiresAt`.
 */
export class InMemoryEventStore implements EventStore {
  readonly items = new Map<string, EventRecord>();
  readonly expiresAt = new Map<string, number>();
  /** Every insert, in order, until a test hands them to the fan-out (fanOutStored): the events table's stream. */
  readonly stream: EventRecord[] = [];

  async get(id: string): Promise<EventRecord | undefined> {
    const e = this.items.get(id);
    return e && copy(e);
  }

  async getSummaries(ids: readonly string[]): Promise<readonly EventSummary[]> {
    return [...new Set(ids)].flatMap((id) => {
      const e = this.items.get(id);
      if (!e) return [];
      const { body: _b, ...summary } = copy(e);
      return [summary];
    });
  }

  async putIfAbsent(event: EventRecord, expiresAt: number): Promise<PutEventResult> {
    const existing = this.items.get(event.id);
    if (existing) return { kind: 'exists', existing: copy(existing) };
    this.items.set(event.id, copy(event));
    this.expiresAt.set(event.id, expiresAt);
    this.stream.push(copy(event));
    return { kind: 'created' };
  }

  /** The unit tests' stream records carry the event itself (`{ event }`), not a DynamoDB image. */
  fromStreamImage(image: Readonly<Record<string, unknown>>): EventRecord {
    return copy(image.event as EventRecord);
  }

  async extendRetention(eventId: string, untilEpochSeconds: number): Promise<void> {
    const current = this.expiresAt.get(eventId);
    if (this.items.has(eventId) && current !== undefined && current < untilEpochSeconds)
      this.expiresAt.set(eventId, untilEpochSeconds);
  }
}

/** What DynamoDbSubscriptionStore's `ADD routeVersion :one, routedPatterns :types` does to a row. */
function routingCounted(
  s: Subscription,
  addedPatterns: readonly string[],
): Pick<Subscription, 'routeVersion' | 'routedPatterns'> {
  const patterns = [...new Set([...(s.routedPatterns ?? []), ...addedPatterns])].sort();
  return { routeVersion: (s.routeVersion ?? 0) + 1, ...(patterns.length ? { routedPatterns: patterns } : {}) };
}

/**
 * The subscriptions table as DynamoDbSubscriptionStore keeps it, with its routing counts; a
 * tenant's listing newest first, as the byTenant index gives it.
 */
export class InMemorySubscriptionStore implements SubscriptionStore {
  readonly items = new Map<string, Subscription>();

  async create(subscription: Subscription): Promise<void> {
    this.items.set(subscription.id, copy(subscription));
  }

  async get(id: string): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    return s && copy(s);
  }

  /** No cache here: a test that changes a subscription sees the sender act on it at once. */
  getCached(id: string): Promise<Subscription | undefined> {
    return this.get(id);
  }

  async scanPage(request: PageRequest): Promise<Page<Subscription>> {
    return page([...this.items.values()].map(copy), request);
  }

  async list(request: PageRequest & { tenantId?: string }): Promise<Page<Subscription>> {
    const all = request.tenantId
      ? [...this.items.values()]
          .filter((s) => s.tenantId === request.tenantId)
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      : [...this.items.values()];
    return page(all.map(copy), request);
  }

  async all(): Promise<readonly Subscription[]> {
    return [...this.items.values()].map(copy);
  }

  async setState(
    id: string,
    state: SubscriptionState,
    reason: string,
    nowIso: string,
    onlyFrom?: SubscriptionState,
  ): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    if (!s || (onlyFrom && s.state !== onlyFrom)) return undefined;
    const updated: Subscription = {
      ...s,
      state,
      stateReason: reason,
      stateChangedAt: nowIso,
      updatedAt: nowIso,
      ...routingCounted(s, []),
    };
    this.items.set(id, updated);
    return copy(updated);
  }

  async pruneRoutedPatterns(id: string, routeVersion: number, patterns: readonly string[]): Promise<boolean> {
    const s = this.items.get(id);
    if (!s || s.routeVersion !== routeVersion) return false;
    this.items.set(id, { ...s, routedPatterns: (s.routedPatterns ?? []).filter((p) => !patterns.includes(p)) });
    return true;
  }

  async adoptRouting(id: string): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    if (!s || s.routeVersion !== undefined) return undefined;
    const adopted: Subscription = { ...s, routeVersion: 1, routedPatterns: [...new Set(s.eventTypes)].sort() };
    this.items.set(id, adopted);
    return copy(adopted);
  }

  async update(id: string, change: SubscriptionChange, nowIso: string): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    if (!s || s.state === 'deleted') return undefined;
    const updated = { ...s, ...change, ...routingCounted(s, change.eventTypes ?? []), updatedAt: nowIso } as Record<
      string,
      unknown
    >;
    for (const [k, v] of Object.entries(change)) if (v === null) delete updated[k];
    this.items.set(id, updated as unknown as Subscription);
    return copy(updated as unknown as Subscription);
  }

  async replaceSecrets(
    id: string,
    secrets: RotatedSecrets,
    nowIso: string,
    expectedSecretsVersion: number | undefined,
  ): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    if (!s || s.state === 'deleted' || s.secretsVersion !== expectedSecretsVersion) return undefined;
    const { publicKeys: _p, ...rest } = s;
    const updated: Subscription = {
      ...rest,
      secrets: copy(secrets.sealed),
      secretExpiry: [...secrets.expiry],
      ...(secrets.publicKeys ? { publicKeys: [...secrets.publicKeys] } : {}),
      updatedAt: nowIso,
      secretsVersion: (expectedSecretsVersion ?? 0) + 1,
    };
    this.items.set(id, updated);
    return copy(updated);
  }

  async removeDeleted(id: string): Promise<boolean> {
    return this.items.get(id)?.state === 'deleted' && this.items.delete(id);
  }

  async noteDeadLetter(id: string, nowIso: string): Promise<Subscription | undefined> {
    const s = this.items.get(id);
    if (!s) return undefined;
    const updated: Subscription = {
      ...s,
      deadLetteringSince: s.deadLetteringSince ?? nowIso,
      lastDeadLetterAt: nowIso,
      deadLetterStreak: (s.deadLetterStreak ?? 0) + 1,
    };
    this.items.set(id, updated);
    return copy(updated);
  }

  async clearDeadLetterStreak(id: string): Promise<void> {
    const s = this.items.get(id);
    if (!s) return;
    const { deadLetteringSince: _s, lastDeadLetterAt: _l, deadLetterStreak: _c, ...rest } = s;
    this.items.set(id, rest);
  }

  async markSlow(id: string, untilIso: string): Promise<void> {
    const s = this.items.get(id);
    if (s && !(s.slowUntil !== undefined && s.slowUntil >= untilIso)) this.items.set(id, { ...s, slowUntil: untilIso });
  }

  async markRetriedNow(id: string, atIso: string): Promise<void> {
    const s = this.items.get(id);
    if (s && !(s.retriedNowAt !== undefined && s.retriedNowAt >= atIso))
      this.items.set(id, { ...s, retriedNowAt: atIso });
  }

  async sealPlainSecrets(id: string, sealed: SealedSecrets): Promise<boolean> {
    const s = this.items.get(id);
    if (s?.secrets.scheme !== 'plain') return false;
    this.items.set(id, { ...s, secrets: copy(sealed) });
    return true;
  }
}

/** The TTL a test gives the attempts it seeds: far off, as no test reads it. */
export const SEEDED_TTL = 4_102_444_800;

export class InMemoryAttemptStore implements AttemptStore {
  readonly items: AttemptRecord[] = [];
  /** Each attempt's TTL, by `deliveryId seq`. */
  readonly expiresAt = new Map<string, number>();

  /** As the DynamoDB store's conditional put: an attempt of the same delivery and seq is never overwritten. */
  async put(attempt: AttemptRecord, expiresAt: number): Promise<boolean> {
    if (this.items.some((a) => a.deliveryId === attempt.deliveryId && a.seq === attempt.seq)) return false;
    this.items.push(copy(attempt));
    this.expiresAt.set(`${attempt.deliveryId} ${attempt.seq}`, expiresAt);
    return true;
  }

  async extendRetention(deliveryId: string, untilEpochSeconds: number): Promise<void> {
    for (const a of this.items) {
      const key = `${a.deliveryId} ${a.seq}`;
      if (a.deliveryId === deliveryId && (this.expiresAt.get(key) ?? 0) < untilEpochSeconds)
        this.expiresAt.set(key, untilEpochSeconds);
    }
  }

  async list(deliveryId: string): Promise<readonly AttemptRecord[]> {
    return this.items
      .filter((a) => a.deliveryId === deliveryId)
      .sort((a, b) => a.seq - b.seq)
      .map(copy);
  }

  /** Newest first from the cursor (an offset from the newest), each page returned oldest first, like the DynamoDB store. */
  async latest(deliveryId: string, request: PageRequest): Promise<Page<AttemptRecord>> {
    const newestFirst = (await this.list(deliveryId)).slice().reverse();
    const p = page(newestFirst, request);
    return { ...p, items: [...p.items].reverse() };
  }
}

/** Records every call; `failSetVisibility` makes `setVisibility` reject (SQS unreachable). */
export class RecordingQueue implements DeliveryQueue {
  readonly enqueued: DeliveryMessage[][] = [];
  readonly retries: { receiptHandle: string; delaySeconds: number }[] = [];
  failSetVisibility?: Error;

  async enqueue(messages: readonly DeliveryMessage[]): Promise<void> {
    this.enqueued.push(messages.map((m) => ({ ...m })));
  }

  /** The real wire form: it is pure, and a fake of it could only drift. */
  decode(wire: Readonly<Record<string, unknown>>) {
    return decodeDeliveryMessages(wire);
  }

  async setVisibility(receiptHandle: string, delaySeconds: number): Promise<void> {
    this.retries.push({ receiptHandle, delaySeconds });
    if (this.failSetVisibility) throw this.failSetVisibility;
  }

  /** `arn`: the event source ARN records of this queue carry, in tests that tell lanes apart. */
  constructor(readonly arn = 'arn:aws:sqs:us-east-1:000000000000:recording') {}

  receivedFrom(eventSourceArn: string | undefined): boolean {
    return eventSourceArn === this.arn;
  }

  /** Every message enqueued, across calls. */
  messages(): DeliveryMessage[] {
    return this.enqueued.flat();
  }
}

/** Publish batches' manifests and the sweeper's watermarks, as the table holds them; the event log with the adapter's order and cursor rules. */
export class InMemoryIngestManifestStore implements IngestManifestStore {
  readonly items = new Map<string, IngestManifest>();
  readonly marks = new Map<string, ManifestWatermark>();

  async put(manifest: IngestManifest): Promise<void> {
    this.items.set(`${manifest.shard}|${manifest.key}`, structuredClone(manifest));
  }

  async watermarks(): Promise<readonly ManifestWatermark[]> {
    return [...this.marks.values()].map(copy);
  }

  async listAfter(
    shard: string,
    afterKey: string,
    beforeIso: string,
    limit: number,
  ): Promise<readonly IngestManifest[]> {
    return [...this.items.values()]
      .filter((m) => m.shard === shard && m.key > afterKey && m.key < beforeIso)
      .sort((a, b) => a.key.localeCompare(b.key))
      .slice(0, limit)
      .map(copy);
  }

  async setWatermark(next: ManifestWatermark, previous: ManifestWatermark | undefined): Promise<boolean> {
    const current = this.marks.get(next.shard);
    if (previous ? current?.checkedBefore !== previous.checkedBefore : current !== undefined) return false;
    this.marks.set(next.shard, copy(next));
    return true;
  }

  /** Each manifest's events newest first, a batch's last first; the cursor is a position (manifest key, events passed), as the adapter's. */
  async listEvents(request: EventLogRequest): Promise<Page<EventLogEntry>> {
    const position = decodeLogCursor(request.cursor);
    const all = [...this.items.values()]
      .filter((m) => !request.since || m.key >= request.since)
      .sort((a, b) => b.key.localeCompare(a.key));
    const items: EventLogEntry[] = [];
    for (const m of all) {
      if (position && m.key > position.k) continue;
      for (let n = position && m.key === position.k ? position.n : 0; n < m.eventIds.length; n++) {
        const i = m.eventIds.length - 1 - n;
        const entry = logEntry(m, i);
        if (!matchesLog(request, entry)) continue;
        items.push(entry);
        if (items.length === request.limit) return { items, nextCursor: encodeCursor({ k: m.key, n: n + 1 })! };
      }
    }
    return { items };
  }
}

/** The delivery engine's dependencies, over in-memory fakes a test can inspect. */
export interface FakeDeps
  extends Pick<
    Deps,
    | 'defaultRetryPolicy'
    | 'sweepGraceSeconds'
    | 'inFlightWaitSeconds'
    | 'slowAfterMs'
    | 'retention'
    | 'allowPrivateTargets'
    | 'resolver'
    | 'autoPause'
    | 'secretSealer'
    | 'secretOpener'
    | 'consoleSettings'
  > {
  readonly subscriptions: InMemorySubscriptionStore;
  readonly routes: InMemoryRouteStore;
  readonly events: InMemoryEventStore;
  readonly deliveries: InMemoryDeliveryStore;
  readonly attempts: InMemoryAttemptStore;
  readonly queue: RecordingQueue;
  readonly slowLane: RecordingQueue;
  readonly ingestManifests: InMemoryIngestManifestStore;
  readonly sendRate: InMemorySendRateCounters;
  readonly clock: FakeClock;
  readonly metrics: MemoryMetrics;
}

/** The engine's dependencies over fresh in-memory fakes; pass any part to replace it. */
/** What the events table's stream would bring the fan-out: every event stored since the last call, enqueued. */
export async function fanOutStored(deps: Pick<FakeDeps, 'events' | 'queue' | 'defaultRetryPolicy'>): Promise<number> {
  return fanOut(deps, deps.events.stream.splice(0));
}

export function fakeDeps(overrides: Partial<Mutable<FakeDeps>> = {}): FakeDeps {
  const subscriptions = overrides.subscriptions ?? new InMemorySubscriptionStore();
  return {
    subscriptions,
    // Always up to date with the subscriptions as seeded: the routing writes are tested on their own.
    routes: new SyncedRouteStore(subscriptions.items),
    events: new InMemoryEventStore(),
    deliveries: new InMemoryDeliveryStore(),
    attempts: new InMemoryAttemptStore(),
    queue: new RecordingQueue(),
    slowLane: new RecordingQueue('arn:aws:sqs:us-east-1:000000000000:recording-slow'),
    ingestManifests: new InMemoryIngestManifestStore(),
    sendRate: new InMemorySendRateCounters(),
    clock: new FakeClock(),
    metrics: new MemoryMetrics(),
    defaultRetryPolicy: DEFAULT_RETRY_POLICY as RetryPolicy,
    sweepGraceSeconds: DEFAULT_SWEEP_GRACE_SECONDS,
    inFlightWaitSeconds: DEFAULT_IN_FLIGHT_WAIT_SECONDS,
    slowAfterMs: SLOW_LANE.slowAfterMs,
    retention: DEFAULT_RETENTION,
    allowPrivateTargets: false,
    resolver: { resolve: async () => ['93.184.216.34'] },
    autoPause: DEFAULT_AUTO_PAUSE_POLICY,
    // The real local cipher with a fixed key: sealing is in-memory AES-GCM, nothing to fake.
    secretSealer: TEST_SECRETS_CIPHER,
    secretOpener: TEST_SECRETS_CIPHER,
    consoleSettings: {},
    ...overrides,
  };
}

const T0 = '2024-05-01T12:00:00.000Z';

/** The key fakeDeps seals and opens with, and the secret aSubscription seals by default. */
export const TEST_SECRETS_KEY = new Uint8Array(32).fill(42);
export const TEST_SECRETS_CIPHER = new LocalKeySecretCipher(TEST_SECRETS_KEY);
export const TEST_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** `secrets` sealed for subscription `id` under TEST_SECRETS_KEY, as createSubscription stores them locally. */
export function sealedForTest(id: string, secrets: readonly string[] = [TEST_SECRET]): SealedSecrets {
  return { scheme: 'local-v1', ...encryptSecrets(TEST_SECRETS_KEY, 'local-v1', id, secrets) };
}

/** A subscription with every required field; override what the test is about. */
export function aSubscription(overrides: Partial<Subscription> & { id: string }): Subscription {
  return {
    url: `https://hooks.example.com/${overrides.id}`,
    eventTypes: ['*'],
    state: 'active',
    stateChangedAt: T0,
    secrets: sealedForTest(overrides.id),
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** A pending, due delivery; override what the test is about. */
export function aDelivery(overrides: Partial<Delivery> & { id: string }): Delivery {
  return {
    eventId: 'evt_1',
    subscriptionId: 'sub_1',
    url: 'https://hooks.example.com/sub_1',
    state: STATE.pending,
    attempts: 0,
    attemptSeq: 0,
    nextAttemptAt: T0,
    giveUpAt: '2024-05-04T12:00:00.000Z',
    headers: { 'content-type': 'application/json' },
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

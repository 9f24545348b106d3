import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { INDEXES } from '#config/topology.ts';
import type { ListedSubscription, SealedSecrets, Subscription, SubscriptionState } from '#domain/types.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { RotatedSecrets, SubscriptionChange, SubscriptionStore } from '#ports/subscription-store.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { fromCursor } from './cursor.ts';
import { conditionHeld, ifConditionHolds, isConditionFailure } from './dynamodb.ts';
import { updateExpression } from './update-expression.ts';
import { setBounded } from '#domain/bounded-map.ts';

const SEALED_SCHEMES: ReadonlySet<string | undefined> = new Set<SealedSecrets['scheme']>([
  'kms-v2',
  'kms-v1',
  'local-v1',
]);

/**
 * A stored row as the domain sees it. `secrets` is the sealed map; a row written before
 * sealing holds a plain list there, which is read as `{scheme: 'plain'}` until it is sealed
 * (sealPlainSecrets), so nothing outside the sender ever handles a usable secret by accident.
 */
function fromItem(item: Record<string, unknown> | undefined): Subscription | undefined {
  if (!item) return undefined;
  const { secrets, routedPatterns } = item;
  return {
    ...item,
    ...(Array.isArray(secrets) ? { secrets: { scheme: 'plain', secrets } } : {}),
    // A string set: atomic ADD and DELETE of patterns (app/subscriptions/routing.ts), read back as a sorted list.
    ...(routedPatterns instanceof Set ? { routedPatterns: [...(routedPatterns as Set<string>)].sort() } : {}),
  } as unknown as Subscription;
}

/** The row for a subscription: `routedPatterns` as a string set. */
function toItem(subscription: Subscription): Record<string, unknown> {
  const { routedPatterns, ...rest } = subscription;
  return { ...rest, ...(routedPatterns?.length ? { routedPatterns: new Set(routedPatterns) } : {}) };
}

const fromItems = (items: Record<string, unknown>[] | undefined): Subscription[] =>
  (items ?? []).map((i) => fromItem(i)!);

/** Dead letters of one subscription that go as one write: how many, and the earliest and latest time among them. */
interface DeadLetterNote {
  count: number;
  first: string;
  last: string;
}

/**
 * Subscriptions in DynamoDB, their signing secrets only ever in sealed form. The sender reads a
 * subscription at each attempt through `getCached`, a per-container cache of `cacheMs`; writes
 * through this instance drop it at once (a slow or Retry-now mark updates it instead). Fan-out
 * does not read this table: it reads the routing index (dynamodb-route-store.ts), which every
 * write that counts `routeVersion` up changes next.
 */
export class DynamoDbSubscriptionStore implements SubscriptionStore {
  private readonly byId = new Map<string, { readonly at: number; readonly item: Promise<Subscription | undefined> }>();
  /** Per subscription: the dead-letter note being written, and the notes waiting to go next as one write. */
  private readonly deadLetterNotes = new Map<
    string,
    { done: Promise<void>; next?: { note: DeadLetterNote; written: Promise<Subscription | undefined> } | undefined }
  >();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly cacheMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  async create(subscription: Subscription & { readonly secrets: SealedSecrets }): Promise<void> {
    // The type says so; this holds it at run time too (a cast, a JavaScript caller).
    if (!SEALED_SCHEMES.has(subscription.secrets?.scheme))
      throw new TypeError('subscriptions are stored with sealed secrets only');
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: toItem(subscription),
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    this.dropCaches();
  }

  async get(id: string): Promise<Subscription | undefined> {
    return this.read(id, true);
  }

  private async read(id: string, consistent: boolean): Promise<Subscription | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: consistent }));
    return fromItem(out.Item);
  }

  /**
   * The sender's read: eventually consistent, at half the read units (a sender at 10,000
   * deliveries a second over 10,000 subscriptions reads about one a delivery, and a burst of them
   * passed the table's read ceiling), on top of a cache seconds old anyway. A miss is read again
   * consistently: a subscription created a moment ago must not look deleted.
   */
  private async readForSending(id: string): Promise<Subscription | undefined> {
    return (await this.read(id, false)) ?? this.read(id, true);
  }

  /** Writes through this instance are seen at once by its own readers. */
  private dropCaches(): void {
    this.byId.clear();
  }

  /**
   * The read is cached as it starts, not once it ends: the deliveries a sender attempts side by
   * side (a batch, a pack) mostly go to a few subscriptions, and their misses share one read.
   */
  getCached(id: string): Promise<Subscription | undefined> {
    const hit = this.byId.get(id);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.item;
    const item = this.readForSending(id);
    if (this.cacheMs > 0) this.keep(id, this.now(), item);
    return item;
  }

  /** A cached copy read at `at`. Bounded: a sender serving more subscriptions than this re-reads the oldest, nothing worse. */
  private keep(id: string, at: number, item: Promise<Subscription | undefined>): void {
    setBounded(this.byId, id, { at, item }, 10_000);
    // A failed read is not kept: the next caller reads again.
    item.catch(() => {
      if (this.byId.get(id)?.item === item) this.byId.delete(id);
    });
  }

  /**
   * A tenant's subscriptions are a query of the `byTenant` index, newest first (a page reads the
   * listed fields of its own items only); every subscription (the admin's listing, with no tenant)
   * is a scan, in no order.
   */
  async list(request: PageRequest & { tenantId?: string }): Promise<Page<ListedSubscription>> {
    if (!request.tenantId) return this.scanPage(request);
    const tenantId = request.tenantId;
    return this.paged(
      request,
      (page) =>
        new QueryCommand({
          TableName: this.table,
          IndexName: INDEXES.subscriptions.byTenant,
          ...page,
          ScanIndexForward: false,
          KeyConditionExpression: '#t = :t',
          ExpressionAttributeNames: { '#t': 'tenantId' },
          ExpressionAttributeValues: { ':t': tenantId },
        }),
    );
  }

  scanPage(request: PageRequest): Promise<Page<Subscription>> {
    return this.paged(request, (page) => new ScanCommand({ TableName: this.table, ...page }));
  }

  /** Reads until `limit` items or the end, the cursor being the last key read. */
  private async paged(
    request: PageRequest,
    command: (page: { Limit: number; ExclusiveStartKey?: Record<string, string> }) => QueryCommand | ScanCommand,
  ): Promise<Page<Subscription>> {
    let key = decodeCursor<Record<string, string>>(request.cursor);
    const items: Subscription[] = [];
    do {
      const startKey = key;
      const out = await fromCursor(startKey, () =>
        this.db.send(
          command({
            Limit: request.limit - items.length,
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }) as QueryCommand,
        ),
      );
      items.push(...fromItems(out.Items));
      key = out.LastEvaluatedKey as Record<string, string> | undefined;
    } while (key && items.length < request.limit);
    return key ? { items, nextCursor: encodeCursor(key)! } : { items };
  }

  async all(): Promise<readonly Subscription[]> {
    const items: Subscription[] = [];
    let key: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({ TableName: this.table, ExclusiveStartKey: key, ConsistentRead: true }),
      );
      items.push(...fromItems(out.Items));
      key = out.LastEvaluatedKey;
    } while (key);
    return items;
  }

  async setState(
    id: string,
    state: SubscriptionState,
    reason: string,
    nowIso: string,
    onlyFrom?: SubscriptionState,
  ): Promise<Subscription | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          // A state decides whether the subscription takes deliveries: a routing change.
          UpdateExpression: 'SET #s = :s, #r = :r, #c = :now, #u = :now ADD #rv :one',
          ConditionExpression: onlyFrom ? 'attribute_exists(id) AND #s = :from' : 'attribute_exists(id)',
          ExpressionAttributeNames: {
            '#s': 'state',
            '#r': 'stateReason',
            '#c': 'stateChangedAt',
            '#u': 'updatedAt',
            '#rv': 'routeVersion',
          },
          ExpressionAttributeValues: {
            ':s': state,
            ':r': reason,
            ':now': nowIso,
            ':one': 1,
            ...(onlyFrom ? { ':from': onlyFrom } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    // Any successful state change may alter fan-out: drop the cached list.
    if (out) this.dropCaches();
    return fromItem(out?.Attributes);
  }

  async update(id: string, change: SubscriptionChange, nowIso: string): Promise<Subscription | undefined> {
    // null removes a field (updateExpression removes what is undefined).
    const set = Object.fromEntries(Object.entries(change).map(([k, v]) => [k, v === null ? undefined : v]));
    // Every edit may change routing (event types, the deadline, the rate limit); new patterns join the routed set.
    return this.editLive(id, { ...set, updatedAt: nowIso }, undefined, {
      routeVersion: 1,
      ...(change.eventTypes ? { routedPatterns: new Set(change.eventTypes) } : {}),
    });
  }

  async replaceSecrets(
    id: string,
    secrets: RotatedSecrets,
    nowIso: string,
    expectedSecretsVersion: number | undefined,
  ): Promise<Subscription | undefined> {
    const set = {
      secrets: secrets.sealed,
      secretExpiry: secrets.expiry,
      publicKeys: secrets.publicKeys,
      updatedAt: nowIso,
      secretsVersion: (expectedSecretsVersion ?? 0) + 1,
    };
    return this.editLive(id, set, expectedSecretsVersion ?? null);
  }

  /**
   * One SET/REMOVE on a row that exists and is not deleted (and, if given, whose secrets are
   * still at `expectedSecretsVersion`, null for never replaced); the updated row, or undefined.
   */
  private async editLive(
    id: string,
    set: Record<string, unknown>,
    expectedSecretsVersion?: number | null,
    add: Record<string, unknown> = {},
  ): Promise<Subscription | undefined> {
    const expression = updateExpression(set, [], add);
    const unchanged =
      expectedSecretsVersion === undefined
        ? ''
        : expectedSecretsVersion === null
          ? ' AND attribute_not_exists(#secretsVersion)'
          : ' AND #secretsVersion = :expected';
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          ...expression,
          ConditionExpression: `attribute_exists(id) AND #state <> :deleted${unchanged}`,
          ExpressionAttributeNames: { ...expression.ExpressionAttributeNames, '#state': 'state' },
          ExpressionAttributeValues: {
            ...expression.ExpressionAttributeValues,
            ':deleted': 'deleted' satisfies SubscriptionState,
            ...(typeof expectedSecretsVersion === 'number' ? { ':expected': expectedSecretsVersion } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    // The URL, event types or secrets may have changed: fan-out and the sender must see it.
    if (out) this.dropCaches();
    return fromItem(out?.Attributes);
  }

  async pruneRoutedPatterns(id: string, routeVersion: number, patterns: readonly string[]): Promise<boolean> {
    if (patterns.length === 0) return true;
    return conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'DELETE #p :p',
          // A newer change may have routed one of these again: then its own sync prunes.
          ConditionExpression: '#rv = :v',
          ExpressionAttributeNames: { '#p': 'routedPatterns', '#rv': 'routeVersion' },
          ExpressionAttributeValues: { ':p': new Set(patterns), ':v': routeVersion },
        }),
      ),
    );
  }

  async adoptRouting(id: string): Promise<Subscription | undefined> {
    const current = await this.get(id);
    if (!current || current.routeVersion !== undefined) return undefined;
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #rv = :one ADD #p :p',
          // Only a row nothing has routed yet: a change made meanwhile counted it, and synced it itself.
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(#rv)',
          ExpressionAttributeNames: { '#rv': 'routeVersion', '#p': 'routedPatterns' },
          ExpressionAttributeValues: { ':one': 1, ':p': new Set(current.eventTypes) },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return fromItem(out?.Attributes);
  }

  async removeDeleted(id: string): Promise<boolean> {
    const removed = await conditionHeld(
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { id },
          ConditionExpression: '#state = :deleted',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deleted': 'deleted' satisfies SubscriptionState },
        }),
      ),
    );
    if (removed) this.dropCaches();
    return removed;
  }

  /**
   * Dead letters of one subscription noted while its previous note is still being written wait
   * and go together as the next write (`ADD` their count): a refusing endpoint's burst costs a
   * write or two per subscription and container, not one per dead letter, and keeps the count
   * exact. Each caller gets the row as the write that carried its note left it.
   */
  noteDeadLetter(id: string, nowIso: string): Promise<Subscription | undefined> {
    const slot = this.deadLetterNotes.get(id);
    if (slot?.next) {
      const { note, written } = slot.next;
      note.count++;
      if (nowIso < note.first) note.first = nowIso;
      if (nowIso > note.last) note.last = nowIso;
      return written;
    }
    const note: DeadLetterNote = { count: 1, first: nowIso, last: nowIso };
    const written = (slot?.done ?? Promise.resolve()).then(() => {
      // Going now: notes from here on wait behind this write.
      const current = this.deadLetterNotes.get(id);
      if (current?.next?.note === note) current.next = undefined;
      return this.writeDeadLetters(id, note);
    });
    // Settled either way; the slot goes once nothing waits behind it.
    const done: Promise<void> = written
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        const current = this.deadLetterNotes.get(id);
        if (current?.done === done && !current.next) this.deadLetterNotes.delete(id);
      });
    this.deadLetterNotes.set(id, { done, ...(slot ? { next: { note, written } } : {}) });
    return written;
  }

  private async writeDeadLetters(id: string, note: DeadLetterNote): Promise<Subscription | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          // One write: the streak starts at the first dead letter and only ever grows until cleared.
          UpdateExpression: 'SET #since = if_not_exists(#since, :first), #last = :last ADD #count :n',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeNames: {
            '#since': 'deadLetteringSince',
            '#last': 'lastDeadLetterAt',
            '#count': 'deadLetterStreak',
          },
          ExpressionAttributeValues: { ':first': note.first, ':last': note.last, ':n': note.count },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return fromItem(out?.Attributes);
  }

  async clearDeadLetterStreak(id: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'REMOVE #since, #last, #count',
          ConditionExpression: 'attribute_exists(#since)',
          ExpressionAttributeNames: {
            '#since': 'deadLetteringSince',
            '#last': 'lastDeadLetterAt',
            '#count': 'deadLetterStreak',
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  markSlow(id: string, untilIso: string): Promise<void> {
    // A mark is never shortened by a sender that read an older row.
    return this.moveLater(id, 'slowUntil', untilIso);
  }

  markRetriedNow(id: string, atIso: string): Promise<void> {
    // An older mark would let a message made in between go unread.
    return this.moveLater(id, 'retriedNowAt', atIso);
  }

  /**
   * Sets an instant attribute of a row that exists, only ever later: a write carrying an earlier
   * instant changes nothing. The container's cached copy takes the mark too, so its next
   * deliveries see it at once (a slow mark: they take the slow lane) instead of when the cache
   * runs out; the copy's age is not renewed, so every other field is as fresh as it was.
   */
  private async moveLater(id: string, attribute: 'slowUntil' | 'retriedNowAt', atIso: string): Promise<void> {
    await this.writeLater(id, attribute, atIso);
    const hit = this.byId.get(id);
    if (hit)
      this.keep(
        id,
        hit.at,
        hit.item.then((s) =>
          s && (s[attribute] === undefined || s[attribute] < atIso) ? { ...s, [attribute]: atIso } : s,
        ),
      );
  }

  private async writeLater(id: string, attribute: 'slowUntil' | 'retriedNowAt', atIso: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #at = :at',
          ConditionExpression: 'attribute_exists(id) AND (attribute_not_exists(#at) OR #at < :at)',
          ExpressionAttributeNames: { '#at': attribute },
          ExpressionAttributeValues: { ':at': atIso },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async sealPlainSecrets(id: string, sealed: SealedSecrets): Promise<boolean> {
    const written = await conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #secrets = :sealed',
          // Only a row that still holds the plain list: a second migration changes nothing.
          ConditionExpression: 'attribute_type(#secrets, :list)',
          ExpressionAttributeNames: { '#secrets': 'secrets' },
          ExpressionAttributeValues: { ':sealed': sealed, ':list': 'L' },
        }),
      ),
    );
    if (written) this.dropCaches();
    return written;
  }
}

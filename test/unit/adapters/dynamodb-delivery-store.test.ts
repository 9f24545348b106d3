import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  activeDueKey,
  activeShardKey,
  deadLetterShardKey,
  deliveryKey,
  subscriptionDeadLetterShardKey,
  subscriptionShardKey,
} from '#adapters/delivery-keys.ts';
import { DynamoDbDeliveryStore, rowAttributes } from '#adapters/dynamodb-delivery-store.ts';
import { ROW_BOOKKEEPING_BYTES } from '#domain/attempt-log.ts';
import { deliveryIdFor, formatId } from '#domain/ids.ts';
import { itemBytes } from '#domain/item-size.ts';
import { resolveRetentionPolicy } from '#domain/retention.ts';
import { ENGINE_STORE_FACTORIES } from '#adapters/deps/engine-store-factories.ts';
import { InvalidCursorError } from '#ports/page.ts';
import { statesAllowing, targetOf, type DeliveryAction } from '#domain/states.ts';
import { NO_ROW, type Delivery } from '#domain/types.ts';

const TABLE = 'hookline-deliveries';
const NOW = '2024-03-09T23:59:59.999Z';
const NOW_MS = Date.parse(NOW);
const DAY_S = 86_400;
const ddbMock = mockClient(DynamoDBDocumentClient);
const newStore = () =>
  new DynamoDbDeliveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE);

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const serviceError = (name: string) =>
  new DynamoDBServiceException({ name, $fault: 'client', message: name, $metadata: {} });

const CREATED_AT = '2024-03-09T00:00:00.000Z';
/** The fixture delivery's id: of its subscription (sub_1) and creation time, as the table's key needs. */
const ID = deliveryIdFor('evt_1', 'sub_1', CREATED_AT);
/** The table key of ID: its subscription's partition, and `<createdAt>#<id>` there. */
const KEY = { subscriptionShard: subscriptionShardKey('sub_1', ID), listKey: `${CREATED_AT}#${ID}` };

/** A delivery whose id, unless given, is the one of its own subscription and creation time. */
function aDelivery(overrides: Partial<Delivery> = {}): Delivery {
  const subscriptionId = overrides.subscriptionId ?? 'sub_1';
  const createdAt = overrides.createdAt ?? CREATED_AT;
  return {
    id: deliveryIdFor('evt_1', subscriptionId, createdAt),
    eventId: 'evt_1',
    subscriptionId,
    url: 'https://hooks.example.com/in',
    state: 'in_flight',
    attempts: 3,
    attemptSeq: 7,
    nextAttemptAt: '2024-03-09T23:50:00.000Z',
    giveUpAt: '2024-03-12T00:00:00.000Z',
    headers: { 'content-type': 'application/json' },
    createdAt,
    updatedAt: '2024-03-09T23:50:00.000Z',
    ...overrides,
  };
}

/** An UpdateItem read back as DynamoDB would apply it: attribute → value for SET and ADD, attributes for REMOVE. */
interface ResolvedUpdate {
  readonly set: Record<string, unknown>;
  readonly add: Record<string, unknown>;
  readonly remove: string[];
  /** The condition with every placeholder replaced by its attribute name or JSON value. */
  readonly condition: string;
}

function resolveUpdate(input: UpdateCommandInput): ResolvedUpdate {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const name = (alias: string) => {
    assert.ok(alias in names, `${alias} has no ExpressionAttributeNames entry`);
    return names[alias]!;
  };
  const value = (placeholder: string) => {
    assert.ok(placeholder in values, `${placeholder} has no ExpressionAttributeValues entry`);
    return values[placeholder];
  };
  const resolved: ResolvedUpdate = { set: {}, add: {}, remove: [], condition: '' };
  const parts = (input.UpdateExpression ?? '').split(/\s*\b(SET|REMOVE|ADD|DELETE)\b\s*/).filter(Boolean);
  for (let i = 0; i < parts.length; i += 2) {
    const clause = parts[i]!;
    for (const action of parts[i + 1]!.split(/\s*,\s*/)) {
      if (clause === 'SET') {
        const m = /^(#\w+) = (:\w+)$/.exec(action);
        assert.ok(m, `unexpected SET action '${action}'`);
        resolved.set[name(m[1]!)] = value(m[2]!);
      } else if (clause === 'ADD') {
        const m = /^(#\w+) (:\w+)$/.exec(action);
        assert.ok(m, `unexpected ADD action '${action}'`);
        resolved.add[name(m[1]!)] = value(m[2]!);
      } else if (clause === 'REMOVE') {
        assert.match(action, /^#\w+$/);
        resolved.remove.push(name(action));
      } else {
        assert.fail(`unexpected ${clause} clause`);
      }
    }
  }
  return {
    ...resolved,
    condition: (input.ConditionExpression ?? '')
      .replace(/#\w+/g, name)
      .replace(/:\w+/g, (p) => JSON.stringify(value(p))),
  };
}

/**
 * What real DynamoDB checks and a mock does not: every declared name and value is used
 * ("unused in expressions" is a ValidationException), none is undefined, and no attribute is
 * touched twice in one update ("two document paths overlap").
 */
function assertValidUpdate(input: UpdateCommandInput): void {
  const text = [input.UpdateExpression, input.ConditionExpression].filter(Boolean).join(' ');
  assert.deepEqual(
    new Set(Object.keys(input.ExpressionAttributeNames ?? {})),
    new Set(text.match(/#\w+/g)),
    'ExpressionAttributeNames = names used',
  );
  assert.deepEqual(
    new Set(Object.keys(input.ExpressionAttributeValues ?? {})),
    new Set(text.match(/:\w+/g)),
    'ExpressionAttributeValues = values used',
  );
  for (const [placeholder, v] of Object.entries(input.ExpressionAttributeValues ?? {}))
    assert.notEqual(v, undefined, `${placeholder} is undefined`);
  const { set, add, remove } = resolveUpdate(input);
  const paths = [...Object.keys(set), ...Object.keys(add), ...remove];
  assert.equal(new Set(paths).size, paths.length, `an attribute appears twice in '${input.UpdateExpression}'`);
}

const updates = () => ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input);
const onlyUpdate = () => {
  const all = updates();
  assert.equal(all.length, 1);
  return all[0]!;
};

/** The activeShard a live delivery with this id is written with (one of sub_1, created at CREATED_AT). */
async function shardAtFirstWrite(id: string): Promise<unknown> {
  ddbMock.on(PutCommand).resolves({});
  await newStore().write('reschedule', aDelivery({ id, state: 'pending' }), NO_ROW);
  const put = ddbMock.commandCalls(PutCommand).at(-1)!.args[0].input;
  return put.Item!.activeShard;
}

/** The row an attempt (the 8th) leaves, from the expected row at attempt 7: `fields` say what it answered. */
const attempted = (fields: Partial<Delivery> = {}): Delivery =>
  aDelivery({
    state: 'pending',
    attempts: 4,
    attemptSeq: 8,
    nextAttemptAt: '2024-03-10T00:05:00.000Z',
    updatedAt: NOW,
    lastAttempt: { seq: 8, attempt: 4, startedAt: NOW, durationMs: 12, status: 503, responseSnippet: 'busy' },
    lastStatus: 503,
    lastError: 'HTTP 503',
    ...fields,
  });
/** The row as the attempt's message expected it: pending at attempt 7. */
const EXPECTED = { row: 'as', attemptSeq: 7 } as const;

describe('DynamoDbDeliveryStore', () => {
  beforeEach(() => {
    ddbMock.reset();
    ddbMock.on(UpdateCommand).resolves({});
  });
  after(() => ddbMock.restore());

  describe('write, the first of a delivery (no row yet)', () => {
    it('puts the whole row only if absent (or written before any attempt), in the target state with its index attributes', async () => {
      ddbMock.on(PutCommand).resolves({});
      const delivered = aDelivery({
        state: 'pending',
        attempts: 1,
        attemptSeq: 1,
        lastStatus: 204,
        lastResponse: 'ok',
        updatedAt: NOW,
      });

      assert.equal(await newStore().write('succeed', delivered, NO_ROW), true);

      const put = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
      assert.equal(put.TableName, TABLE);
      assert.equal(put.ConditionExpression, 'attribute_not_exists(id) OR (#state = :pending AND #attemptSeq = :zero)');
      assert.deepEqual(
        [put.ExpressionAttributeNames, put.ExpressionAttributeValues],
        [
          { '#state': 'state', '#attemptSeq': 'attemptSeq' },
          { ':pending': 'pending', ':zero': 0 },
        ],
      );
      const { activeShard, subscriptionShard, listKey, dlShard, dlSubscriptionShard, expiresAt, dueAt, ...rest } =
        put.Item!;
      assert.deepEqual({ subscriptionShard, listKey }, KEY, "keyed on its place in the subscription's listing");
      assert.deepEqual(
        [activeShard, dlShard, dlSubscriptionShard, dueAt],
        [undefined, undefined, undefined, undefined],
        'delivered: in no index, its due time the instant itself',
      );
      assert.equal(expiresAt, Math.floor(NOW_MS / 1000) + 30 * DAY_S);
      const { lastResponse: _derived, ...stored } = delivered;
      assert.deepEqual(
        rest,
        { ...stored, state: 'delivered' },
        "the state is the action's target; the response is read back from the attempt, never stored",
      );
    });

    it("a wait before the first attempt: the row pending, in the sweeper's index", async () => {
      assert.equal(await shardAtFirstWrite(ID), activeShardKey(ID));
    });

    it('refuses, before writing, a delivery whose id is not of its own subscription and creation time', async () => {
      ddbMock.on(PutCommand).resolves({});
      const pending = aDelivery({ state: 'pending' });
      const cases: ReadonlyArray<readonly [string, Delivery]> = [
        ['an id of the older layout', { ...pending, id: 'dlv_7Hq2' }],
        ['an id of another subscription', { ...pending, subscriptionId: 'sub_2' }],
        ['an id of another creation time', { ...pending, createdAt: '2024-03-09T00:00:00.001Z' }],
      ];

      for (const [label, d] of cases)
        await assert.rejects(newStore().write('succeed', d, NO_ROW), /is not the id of a delivery of/, label);
      assert.equal(ddbMock.commandCalls(PutCommand).length, 0);
    });

    it('says false when the row exists (another copy, the sweeper wrote it first)', async () => {
      ddbMock.on(PutCommand).rejects(conditionFailed());

      assert.equal(await newStore().write('succeed', aDelivery({ state: 'pending' }), NO_ROW), false);
    });
  });

  describe('write, from the row as expected', () => {
    it('an outcome: one UpdateItem of what the attempt changed, only while pending at that attempt number', async () => {
      const shard = await shardAtFirstWrite(ID);
      ddbMock.resetHistory();
      const row = attempted();

      assert.equal(await newStore().write('retry', row, EXPECTED), true);

      const input = onlyUpdate();
      assert.equal(input.TableName, TABLE);
      assert.deepEqual(input.Key, KEY);
      const update = resolveUpdate(input);
      assert.equal(update.condition, 'state IN ("pending") AND attemptSeq = 7');
      assert.deepEqual(update.set, {
        state: 'pending',
        attempts: 4,
        attemptSeq: 8,
        nextAttemptAt: '2024-03-10T00:05:00.000Z',
        dueAt: '2024-03-10T00:05:00.000Z',
        lastStatus: 503,
        lastError: 'HTTP 503',
        lastAttempt: row.lastAttempt,
        url: row.url,
        updatedAt: NOW,
        activeShard: shard,
      });
      // An earlier version's stored response and hold go: the inline attempt holds the response now.
      assert.deepEqual(update.remove.sort(), [
        'dlShard',
        'dlSubscriptionShard',
        'expiresAt',
        'lastResponse',
        'leaseUntil',
      ]);
    });

    it('a retry keys the `active` index on its due minute, the instant kept outside it: one due within the same minute leaves the entry as it was', async () => {
      await newStore().write('retry', attempted({ nextAttemptAt: '2024-03-10T00:05:41.250Z' }), EXPECTED);

      const update = resolveUpdate(onlyUpdate());
      assert.equal(update.set.nextAttemptAt, '2024-03-10T00:05:00.000Z', "the index's sort key: the minute");
      assert.equal(update.set.dueAt, '2024-03-10T00:05:41.250Z');
      assert.equal(activeDueKey('2024-03-10T00:05:59.999Z'), '2024-03-10T00:05:00.000Z');
      assert.equal(activeDueKey('2024-03-10T00:06:00.000Z'), '2024-03-10T00:06:00.000Z');
    });

    it('after a timeout: removes the previous status rather than keeping a stale one', async () => {
      await newStore().write(
        'retry',
        attempted({ lastStatus: undefined, lastError: 'timeout after 15000 ms' }),
        EXPECTED,
      );

      const update = resolveUpdate(onlyUpdate());
      assert.equal(update.set.lastError, 'timeout after 15000 ms');
      assert.ok(update.remove.includes('lastStatus'));
    });

    it('delivered: leaves every index and expires after its 30 days (nobody archives it by default)', async () => {
      await newStore().write('succeed', attempted({ lastStatus: 204, lastError: undefined }), EXPECTED);

      const update = resolveUpdate(onlyUpdate());
      assert.equal(update.set.state, 'delivered');
      assert.equal(update.set.expiresAt, Math.floor(NOW_MS / 1000) + 30 * DAY_S);
      assert.equal(update.set.nextAttemptAt, '2024-03-10T00:05:00.000Z', 'out of the index: the instant');
      assert.deepEqual(update.remove.sort(), [
        'activeShard',
        'dlShard',
        'dlSubscriptionShard',
        'dueAt',
        'lastError',
        'lastResponse',
        'leaseUntil',
      ]);
    });

    it("failed: enters the dead-letter indexes on the delivery's shards, leaves the active one, kept 90 + 30 days", async () => {
      await newStore().write('fail_permanently', attempted({ lastStatus: 410, lastError: 'HTTP 410' }), EXPECTED);

      const update = resolveUpdate(onlyUpdate());
      assert.equal(update.set.state, 'failed');
      assert.equal(update.set.dlShard, deadLetterShardKey(ID));
      assert.equal(update.set.dlSubscriptionShard, subscriptionDeadLetterShardKey('sub_1', ID));
      assert.equal(update.set.expiresAt, Math.floor(NOW_MS / 1000) + 120 * DAY_S);
      assert.ok(update.remove.includes('activeShard'));
    });

    it("keeps a row for the deployment's retention: a dead letter kept 180 days expires at 180 + 30, an archived delivered row at 7 + 30", async () => {
      const retention = resolveRetentionPolicy({ deadLetterDays: 180, deliveredDays: 7, archiveDelivered: 1 });
      const store = new DynamoDbDeliveryStore(
        DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
        TABLE,
        { retention },
      );
      await store.write('fail_permanently', attempted({ lastStatus: 410, lastError: 'HTTP 410' }), EXPECTED);
      assert.equal(resolveUpdate(onlyUpdate()).set.expiresAt, Math.floor(NOW_MS / 1000) + 210 * DAY_S);
      ddbMock.resetHistory();
      await store.write('succeed', attempted({ lastStatus: 200 }), EXPECTED);
      assert.equal(resolveUpdate(onlyUpdate()).set.expiresAt, Math.floor(NOW_MS / 1000) + 37 * DAY_S);
    });

    it("the function's store gets the retention its variables set (ENGINE_STORE_FACTORIES)", async () => {
      const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
      const vars = { DELIVERIES_TABLE: TABLE, HOOKLINE_RETENTION_DELIVERED_DAYS: '7' };
      const store = ENGINE_STORE_FACTORIES.deliveries(vars as never, { db } as never);
      await store.write('succeed', attempted({ lastStatus: 200 }), EXPECTED);
      assert.equal(resolveUpdate(onlyUpdate()).set.expiresAt, Math.floor(NOW_MS / 1000) + 7 * DAY_S);
    });

    it('expired after an attempt: the dead-letter indexes of its own subscription', async () => {
      const row = attempted({ subscriptionId: 'sub_9', id: deliveryIdFor('evt_1', 'sub_9', CREATED_AT) });
      await newStore().write('give_up', row, EXPECTED);

      const input = onlyUpdate();
      assert.deepEqual(input.Key, deliveryKey(row.id));
      assert.equal(input.Key!.subscriptionShard, subscriptionShardKey('sub_9', row.id));
      assert.equal(resolveUpdate(input).set.dlSubscriptionShard, subscriptionDeadLetterShardKey('sub_9', row.id));
    });

    it('a wait (reschedule) moves only the due time; the attempt fields the writer did not read stay', async () => {
      await newStore().write(
        'reschedule',
        aDelivery({ state: 'pending', nextAttemptAt: '2024-03-10T00:30:00.000Z', updatedAt: NOW }),
        EXPECTED,
      );

      const update = resolveUpdate(onlyUpdate());
      assert.equal(update.condition, 'state IN ("pending") AND attemptSeq = 7');
      assert.deepEqual(update.set, {
        state: 'pending',
        nextAttemptAt: '2024-03-10T00:30:00.000Z',
        dueAt: '2024-03-10T00:30:00.000Z',
        updatedAt: NOW,
        activeShard: activeShardKey(ID),
      });
      assert.deepEqual(update.remove.sort(), ['dlShard', 'dlSubscriptionShard', 'expiresAt', 'leaseUntil']);
    });

    it("an expiry (the sweeper's, or held back past the deadline) writes its reason into the dead-letter indexes", async () => {
      await newStore().write(
        'expire',
        aDelivery({ state: 'pending', lastError: 'retry deadline passed', updatedAt: NOW }),
        EXPECTED,
      );

      const update = resolveUpdate(onlyUpdate());
      assert.deepEqual(update.set, {
        state: 'expired',
        lastError: 'retry deadline passed',
        updatedAt: NOW,
        nextAttemptAt: aDelivery().nextAttemptAt,
        dlShard: deadLetterShardKey(ID),
        dlSubscriptionShard: subscriptionDeadLetterShardKey('sub_1', ID),
        expiresAt: Math.floor(NOW_MS / 1000) + 120 * DAY_S,
      });
      assert.deepEqual(update.remove.sort(), ['activeShard', 'dueAt', 'leaseUntil']);
    });

    it('says false when the row moved on, and passes on any other error', async () => {
      ddbMock.on(UpdateCommand).rejects(conditionFailed());
      assert.equal(await newStore().write('succeed', attempted(), EXPECTED), false);

      ddbMock.on(UpdateCommand).rejects(serviceError('ProvisionedThroughputExceededException'));
      await assert.rejects(newStore().write('succeed', attempted(), EXPECTED), {
        name: 'ProvisionedThroughputExceededException',
      });
    });

    it('says false for a string that is no delivery id of this layout, without asking DynamoDB', async () => {
      assert.equal(await newStore().write('succeed', attempted({ id: 'dlv_nope' }), EXPECTED), false);
      assert.equal(await newStore().get('dlv_nope'), undefined);
      assert.equal(ddbMock.commandCalls(UpdateCommand).length + ddbMock.commandCalls(GetCommand).length, 0);
    });
  });

  describe('release', () => {
    it('hands back an in-flight delivery of that attempt whose lease ran out, due now', async () => {
      const ok = await newStore().release(ID, 7, NOW);

      assert.equal(ok, true);
      const input = onlyUpdate();
      assert.deepEqual(input.Key, KEY);
      const update = resolveUpdate(input);
      assert.equal(update.condition, `state IN ("in_flight") AND attemptSeq = 7 AND leaseUntil < "${NOW}"`);
      assert.equal(update.set.state, 'pending');
      assert.deepEqual([update.set.nextAttemptAt, update.set.dueAt], ['2024-03-09T23:59:00.000Z', NOW]);
      assert.equal(update.set.updatedAt, NOW);
      assert.match(String(update.set.lastError), /^released/);
      assert.deepEqual(update.remove, ['leaseUntil']);
    });

    it('says false when the worker finished after all', async () => {
      ddbMock.on(UpdateCommand).rejects(conditionFailed());

      assert.equal(await newStore().release(ID, 7, NOW), false);
    });
  });

  describe('replay', () => {
    const GIVE_UP = '2024-03-13T00:00:00.000Z';

    it('brings a terminal delivery back to pending in the active index, out of the dead-letter ones', async () => {
      const shard = await shardAtFirstWrite(ID);
      ddbMock.resetHistory();
      const replayed = aDelivery({
        state: 'pending',
        attempts: 0,
        nextAttemptAt: NOW,
        giveUpAt: GIVE_UP,
        updatedAt: NOW,
      });
      ddbMock.on(UpdateCommand).resolves({ Attributes: { ...replayed, ...KEY, activeShard: shard } });

      const result = await newStore().replay(ID, NOW, GIVE_UP);

      assert.deepEqual(result, replayed);
      const input = onlyUpdate();
      assert.deepEqual(input.Key, KEY);
      assert.equal(input.ReturnValues, 'ALL_NEW');
      const update = resolveUpdate(input);
      assert.equal(update.condition, 'state IN ("failed", "expired", "delivered")');
      assert.deepEqual(update.set, {
        state: 'pending',
        attempts: 0,
        nextAttemptAt: '2024-03-09T23:59:00.000Z',
        dueAt: NOW,
        giveUpAt: GIVE_UP,
        updatedAt: NOW,
        activeShard: shard,
      });
      assert.deepEqual(update.remove.sort(), ['dlShard', 'dlSubscriptionShard', 'expiresAt', 'lastError']);
      assert.equal('attemptSeq' in update.set, false, 'the lifetime attempt sequence is never reset');
    });

    it('says undefined when the delivery is not in a replayable state', async () => {
      ddbMock.on(UpdateCommand).rejects(conditionFailed());

      assert.equal(await newStore().replay(ID, NOW, GIVE_UP), undefined);
    });
  });

  describe('every write is one edge of the domain state machine', () => {
    const cases: ReadonlyArray<readonly [DeliveryAction, (store: DynamoDbDeliveryStore) => Promise<unknown>]> = [
      ...(['succeed', 'fail_permanently', 'retry', 'give_up', 'reschedule', 'expire'] as const).map(
        (action) => [action, (s: DynamoDbDeliveryStore) => s.write(action, attempted(), EXPECTED)] as const,
      ),
      ['release', (s) => s.release(ID, 7, NOW)],
      ['replay', (s) => s.replay(ID, NOW, '2024-03-13T00:00:00.000Z')],
    ];
    for (const [action, run] of cases) {
      it(`${action}: conditioned on statesAllowing('${action}'), writes targetOf('${action}')`, async () => {
        ddbMock.on(UpdateCommand).resolves({ Attributes: { ...aDelivery(), ...KEY, activeShard: 's1' } });

        await run(newStore());

        const update = resolveUpdate(onlyUpdate());
        assert.ok(
          update.condition.startsWith(
            `state IN (${statesAllowing(action)
              .map((x) => JSON.stringify(x))
              .join(', ')})`,
          ),
          update.condition,
        );
        assert.equal(update.set.state, targetOf(action));
      });
    }
  });

  describe('every UpdateItem uses exactly the names and values it declares', () => {
    const cases: ReadonlyArray<readonly [string, (store: DynamoDbDeliveryStore) => Promise<unknown>]> = [
      ['retry', (s) => s.write('retry', attempted(), EXPECTED)],
      [
        'retry after a timeout',
        (s) => s.write('retry', attempted({ lastStatus: undefined, lastError: 'timeout' }), EXPECTED),
      ],
      ['succeed', (s) => s.write('succeed', attempted({ lastStatus: 200, lastError: undefined }), EXPECTED)],
      [
        'fail_permanently',
        (s) => s.write('fail_permanently', attempted({ lastStatus: 410, lastError: 'HTTP 410' }), EXPECTED),
      ],
      ['give_up', (s) => s.write('give_up', attempted({ lastError: 'deadline' }), EXPECTED)],
      ['reschedule', (s) => s.write('reschedule', aDelivery({ state: 'pending' }), EXPECTED)],
      ['expire', (s) => s.write('expire', aDelivery({ state: 'pending', lastError: 'deadline' }), EXPECTED)],
      ['release', (s) => s.release(ID, 7, NOW)],
      ['replay', (s) => s.replay(ID, NOW, '2024-03-13T00:00:00.000Z')],
    ];
    for (const [label, run] of cases) {
      it(label, async () => {
        ddbMock.on(UpdateCommand).resolves({ Attributes: { ...aDelivery(), ...KEY, activeShard: 's1' } });

        await run(newStore());

        assertValidUpdate(onlyUpdate());
      });
    }
  });

  describe('rowAttributes', () => {
    it('gives a whole row its key and the index attributes of its state', () => {
      assert.deepEqual(rowAttributes(aDelivery(), 'pending', NOW), {
        ...KEY,
        activeShard: activeShardKey(ID),
        nextAttemptAt: activeDueKey(aDelivery().nextAttemptAt),
        dueAt: aDelivery().nextAttemptAt,
        dlShard: undefined,
        dlSubscriptionShard: undefined,
        expiresAt: undefined,
      });
      assert.deepEqual(rowAttributes(aDelivery(), 'failed', NOW), {
        ...KEY,
        activeShard: undefined,
        nextAttemptAt: aDelivery().nextAttemptAt,
        dueAt: undefined,
        dlShard: deadLetterShardKey(ID),
        dlSubscriptionShard: subscriptionDeadLetterShardKey('sub_1', ID),
        expiresAt: Math.floor(NOW_MS / 1000) + 120 * DAY_S,
      });
    });

    it(`adds at most ROW_BOOKKEEPING_BYTES (${ROW_BOOKKEEPING_BYTES}) to a row's own fields, in every state (the inline-log rule's allowance)`, async () => {
      // A subscription id as the API makes them, and a delivery id of it: the longest keys a row gets.
      const subscriptionId = formatId('sub', new Uint8Array(12).fill(255));
      const createdAt = '2026-12-07T05:07:06.874Z';
      const row = aDelivery({
        subscriptionId,
        createdAt,
        id: deliveryIdFor(formatId('evt', new Uint8Array(16)), subscriptionId, createdAt),
      });
      const added: Record<string, number> = {};
      for (const state of ['pending', 'delivered', 'failed', 'expired'] as const) {
        ddbMock.reset();
        ddbMock.on(PutCommand).resolves({});
        const action =
          state === 'pending'
            ? 'retry'
            : state === 'delivered'
              ? 'succeed'
              : state === 'failed'
                ? 'fail_permanently'
                : 'give_up';
        await newStore().write(action, { ...row, state }, NO_ROW);
        const item = ddbMock.commandCalls(PutCommand)[0]!.args[0].input.Item!;
        added[state] = itemBytes(item) - itemBytes({ ...row, state });
      }
      for (const [state, bytes] of Object.entries(added))
        assert.ok(bytes > 0 && bytes <= ROW_BOOKKEEPING_BYTES, `${state}: ${bytes} B added`);
      // Not so loose that the rule keeps much less on a row than it could.
      assert.ok(Math.max(...Object.values(added)) > ROW_BOOKKEEPING_BYTES / 2, JSON.stringify(added));
    });

    it('refuses a delivery whose id is not of its own subscription and creation time', () => {
      assert.throws(
        () =>
          rowAttributes(
            { id: 'dlv_7Hq2', subscriptionId: 'sub_1', createdAt: CREATED_AT, nextAttemptAt: NOW },
            'pending',
            NOW,
          ),
        /is not the id of a delivery of/,
      );
      assert.throws(
        () =>
          rowAttributes({ id: ID, subscriptionId: 'sub_2', createdAt: CREATED_AT, nextAttemptAt: NOW }, 'pending', NOW),
        /is not the id of a delivery of/,
      );
      assert.throws(
        () => rowAttributes({ id: ID, subscriptionId: 'sub_1', createdAt: NOW, nextAttemptAt: NOW }, 'pending', NOW),
        /is not the id of a delivery of/,
      );
    });
  });

  describe('listDeadLetters cursors', () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

    it('reads the 32 dead-letter shards newest first and returns a cursor naming the shard and key of the last one', async () => {
      const item = aDelivery({ state: 'failed' });
      // An index's key holds the table's key too: the subscription's partition and `listKey`.
      const key = { ...KEY, dlShard: 'dl#3', updatedAt: item.updatedAt };
      ddbMock.on(QueryCommand).resolves({ Items: [] });
      ddbMock
        .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'dl#3' } })
        .resolves({ Items: [{ ...item, ...KEY, dlShard: 'dl#3' }], LastEvaluatedKey: key });

      const page = await newStore().listDeadLetters({ limit: 1 });

      assert.deepEqual(page.items, [item]);
      const queries = ddbMock.commandCalls(QueryCommand).map((c) => c.args[0].input);
      assert.deepEqual(
        queries.map((q) => q.ExpressionAttributeValues?.[':pk']),
        Array.from({ length: 32 }, (_, k) => `dl#${k}`),
        'no day partitions to walk',
      );
      for (const q of queries) {
        assert.equal(q.IndexName, 'deadLetterShard');
        assert.equal(q.ScanIndexForward, false);
      }
      assert.deepEqual(JSON.parse(Buffer.from(page.nextCursor!, 'base64url').toString()), {
        p: 3,
        s: item.updatedAt,
        k: key,
      });
    });

    const forged: ReadonlyArray<readonly [string, unknown]> = [
      [
        'a shard out of range',
        {
          p: 32,
          s: '2024-03-09T00:00:00.000Z',
          k: { ...KEY, dlShard: 'dl#32', updatedAt: '2024-03-09T00:00:00.000Z' },
        },
      ],
      [
        'a key of another shard',
        { p: 2, s: '2024-03-09T00:00:00.000Z', k: { ...KEY, dlShard: 'dl#3', updatedAt: '2024-03-09T00:00:00.000Z' } },
      ],
      [
        'a key of another listing',
        {
          p: 2,
          s: '2024-03-09T00:00:00.000Z',
          k: { ...KEY, dlSubscriptionShard: 'sub_1#2', updatedAt: '2024-03-09T00:00:00.000Z' },
        },
      ],
      ['a position that is a string', { p: '2', s: 'x', k: {} }],
      ['a key that is not an object', { p: 0, s: 'x', k: ID }],
    ];
    for (const [label, cursor] of forged) {
      it(`refuses a cursor with ${label} before reading anything`, async () => {
        ddbMock.on(QueryCommand).resolves({ Items: [] });

        await assert.rejects(
          newStore().listDeadLetters({ limit: 10, cursor: b64(cursor) }),
          (e: unknown) => e instanceof InvalidCursorError,
        );
        assert.equal(ddbMock.commandCalls(QueryCommand).length, 0);
      });
    }
  });
});

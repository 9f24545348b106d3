import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { encodeBody } from '#adapters/body-codec.ts';
import { DynamoDbEventStore } from '#adapters/dynamodb-event-store.ts';
import { BodyIntegrityError } from '#adapters/errors.ts';
import type { EventRecord } from '#domain/types.ts';
import { itemSize, writeUnits } from '../../../scripts/bench/item-size.ts';

const TABLE = 'hookline-events';
/** The TTL the tests' writer gives (publish computes it: eventTtlFor). */
const TTL = 1_717_000_000;
const ddbMock = mockClient(DynamoDBDocumentClient);
const newStore = () =>
  new DynamoDbEventStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE);
const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const serviceError = (name: string) =>
  new DynamoDBServiceException({ name, $fault: 'server', message: name, $metadata: {} });

/** An event as publish makes it, with the bench's 1 KB payload (scripts/bench/bench-stack.ts PAYLOAD_1KB). */
function benchEvent(overrides: Partial<EventRecord> = {}): EventRecord {
  const id = 'evt_AAECAwQFBgcICQoLDA0ODw';
  const createdAt = '2024-05-01T12:00:00.000Z';
  return {
    id,
    type: 'bench.cost',
    body: `{"id":"${id}","type":"bench.cost","timestamp":"${createdAt}","data":${JSON.stringify({ pad: 'a'.repeat(1010) })}}`,
    subscriptionIds: ['sub_AAECAwQFBgcICQoLDA0ODw'],
    deliveryIds: ['dlv_Vb2xQk1cY3nZk9dRr7aQ1w'],
    createdAt,
    ...overrides,
  };
}

const putItem = () => ddbMock.commandCalls(PutCommand)[0]!.args[0].input.Item!;

describe('DynamoDbEventStore', () => {
  beforeEach(() => {
    ddbMock.reset();
    ddbMock.on(PutCommand).resolves({});
  });
  after(() => ddbMock.restore());

  describe('putIfAbsent', () => {
    it('stores the body compressed with its sha256 beside it, no text copy, in one conditional put', async () => {
      const e = benchEvent();

      assert.deepEqual(await newStore().putIfAbsent(e, TTL), { kind: 'created' });

      const input = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
      assert.equal(input.TableName, TABLE);
      assert.equal(input.ConditionExpression, 'attribute_not_exists(id)');
      const { bodyZ, bodySha256, expiresAt, ...rest } = input.Item!;
      const { body: _b, ...fields } = e;
      assert.deepEqual(rest, fields);
      assert.ok(bodyZ instanceof Uint8Array);
      assert.deepEqual({ bytes: bodyZ, sha256: bodySha256 }, encodeBody(e.body));
      assert.equal(expiresAt, TTL, 'the TTL its writer gave');
    });

    it('the 1 KB bench event is one write unit: 351 B stored instead of 1,299 B', async (t) => {
      const e = benchEvent();
      await newStore().putIfAbsent(e, TTL);
      const after = marshall(putItem(), { removeUndefinedValues: true });
      const before = marshall({ ...e, expiresAt: putItem().expiresAt }, { removeUndefinedValues: true });
      t.diagnostic(
        `event item: ${itemSize(before)} B (${writeUnits(before)} WU) with the text body, ${itemSize(after)} B (${writeUnits(after)} WU) compressed`,
      );

      assert.equal(after.bodyZ?.B !== undefined, true, 'a binary attribute');
      assert.equal(itemSize(before), 1299);
      assert.equal(writeUnits(before), 2);
      assert.equal(itemSize(after), 351);
      assert.equal(writeUnits(after), 1);
    });

    it('answers the stored event when the id exists, read consistently and decompressed', async () => {
      const stored = benchEvent({ body: '{"first":true}' });
      ddbMock.on(PutCommand).rejects(conditionFailed());
      ddbMock.on(GetCommand).resolves({ Item: { ...storedItem(stored), expiresAt: 1, restored: true } });

      assert.deepEqual(await newStore().putIfAbsent(benchEvent(), TTL), { kind: 'exists', existing: stored });
      assert.equal(ddbMock.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead, true);
    });

    it('passes other errors on', async () => {
      ddbMock.on(PutCommand).rejects(serviceError('ProvisionedThroughputExceededException'));

      await assert.rejects(newStore().putIfAbsent(benchEvent(), TTL), {
        name: 'ProvisionedThroughputExceededException',
      });
    });
  });

  describe('get', () => {
    it('inflates the body and answers exactly the EventRecord (no TTL, no storage attributes, no `restored` an earlier restore wrote)', async () => {
      const e = benchEvent({ tenantId: 'ten_1' });
      ddbMock.on(GetCommand).resolves({ Item: { ...storedItem(e), expiresAt: 1_800_000_000, restored: true } });

      assert.deepEqual(await newStore().get(e.id), e);
    });

    it('reads a row written before bodies were compressed (the text in `body`)', async () => {
      const e = benchEvent();
      ddbMock.on(GetCommand).resolves({ Item: { ...e, expiresAt: 1_800_000_000 } });

      assert.deepEqual(await newStore().get(e.id), e);
    });

    it('refuses bytes that do not match the sha256 beside them', async () => {
      const e = benchEvent();
      ddbMock.on(GetCommand).resolves({ Item: { ...storedItem(e), bodySha256: encodeBody('{"other":1}').sha256 } });

      await assert.rejects(newStore().get(e.id), BodyIntegrityError);
    });

    it('refuses compressed bytes with no sha256 beside them', async () => {
      const { bodySha256: _s, ...item } = storedItem(benchEvent());
      ddbMock.on(GetCommand).resolves({ Item: item });

      await assert.rejects(newStore().get('evt_AAECAwQFBgcICQoLDA0ODw'), BodyIntegrityError);
    });

    it('answers undefined for an unknown id', async () => {
      ddbMock.on(GetCommand).resolves({});

      assert.equal(await newStore().get('evt_none'), undefined);
    });
  });

  describe('extendRetention', () => {
    it('sets the new TTL only on an existing row whose TTL is earlier', async () => {
      ddbMock.on(UpdateCommand).resolves({});

      await newStore().extendRetention('evt_1', 1_900_000_000);

      const input = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
      assert.deepEqual(
        { ...input },
        {
          TableName: TABLE,
          Key: { id: 'evt_1' },
          UpdateExpression: 'SET #e = :t',
          ConditionExpression: 'attribute_exists(id) AND #e < :t',
          ExpressionAttributeNames: { '#e': 'expiresAt' },
          ExpressionAttributeValues: { ':t': 1_900_000_000 },
        },
      );
    });

    it('a refused condition (gone, or kept as long already) is not an error', async () => {
      ddbMock.on(UpdateCommand).rejects(conditionFailed());

      await newStore().extendRetention('evt_1', 1_900_000_000);
    });

    it('passes other errors on', async () => {
      ddbMock.on(UpdateCommand).rejects(serviceError('InternalServerError'));

      await assert.rejects(newStore().extendRetention('evt_1', 1_900_000_000), { name: 'InternalServerError' });
    });
  });
});

/** The row DynamoDbEventStore writes for `e`. */
function storedItem(e: EventRecord): Record<string, unknown> {
  const { body, ...fields } = e;
  const { bytes, sha256 } = encodeBody(body);
  return {
    ...fields,
    bodyZ: bytes,
    bodySha256: sha256,
    expiresAt: TTL,
  };
}

describe('DynamoDbEventStore.fromStreamImage', () => {
  it("reads the event back from a stream record's new image, its compressed body given in base64 as Lambda hands it over", async () => {
    ddbMock.reset();
    ddbMock.on(PutCommand).resolves({});
    const event = benchEvent({ tenantId: 'acme', firstSends: { sub_AAECAwQFBgcICQoLDA0ODw: { alone: true } } });
    await newStore().putIfAbsent(event, TTL);
    const item = putItem();
    // What Lambda's JSON holds: the attribute-value form, binary values as base64 text.
    const image = JSON.parse(
      JSON.stringify(marshall(item), (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)),
    );
    assert.equal(typeof image.bodyZ.B, 'string');

    assert.deepEqual(newStore().fromStreamImage(image), event);
  });
});

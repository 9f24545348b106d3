import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { AjvSchemaValidator } from '#adapters/ajv-schema-validator.ts';
import type { EventTypeCheck } from '#domain/event-type-catalog.ts';
import { createIngestHandler } from '#handlers/ingest.ts';
import { aSubscription, fakeDeps, fanOutStored } from '#test/fakes.ts';
import { InMemoryEventTypeStore } from '#test/memory-event-type-store.ts';

const context = {
  getRemainingTimeInMillis: () => 60_000,
  awsRequestId: 'r',
  functionName: 'ingest',
} as unknown as Context;

const record = (messageId: string, body: string, receiveCount = '1'): SQSRecord =>
  ({
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: receiveCount },
  }) as unknown as SQSRecord;

/** Keeps every WARN and ERROR record with its attributes: the level is what the test is about. */
function recordingLogger() {
  const logger = new Logger({ logLevel: 'SILENT' });
  const lines = {
    warn: [] as Array<[string, Record<string, unknown>]>,
    error: [] as Array<[string, Record<string, unknown>]>,
  };
  logger.warn = (...args: unknown[]) => void lines.warn.push([String(args[0]), args[1] as Record<string, unknown>]);
  logger.error = (...args: unknown[]) => void lines.error.push([String(args[0]), args[1] as Record<string, unknown>]);
  return { logger, lines };
}

describe('ingest handler', () => {
  it('a refused message is a WARN naming the field and the rule, without an error or stack, and stays on the queue', async () => {
    const deps = fakeDeps();
    const { logger, lines } = recordingLogger();
    const event: SQSEvent = {
      Records: [
        record('m-json', 'not json', '3'),
        record('m-type', '{"payload":{}}'),
        record('m-dup', '{"type":"a","type":"b","payload":{}}'),
        record('m-ok', '{"type":"order.created","payload":{}}'),
      ],
    };

    const response = await createIngestHandler(deps, { logger })(event, context);

    assert.deepEqual(response, {
      batchItemFailures: [{ itemIdentifier: 'm-json' }, { itemIdentifier: 'm-type' }, { itemIdentifier: 'm-dup' }],
    });
    assert.deepEqual(lines.error, []);
    assert.deepEqual(
      lines.warn.map(([message, attributes]) => [
        message,
        attributes.messageId,
        attributes.field,
        typeof attributes.reason,
        'error' in attributes,
      ]),
      [
        ['ingest message rejected', 'm-json', 'body', 'string', false],
        ['ingest message rejected', 'm-type', 'type', 'string', false],
        ['ingest message rejected', 'm-dup', 'type', 'string', false],
      ],
    );
    assert.equal(
      lines.warn[0]![1].receiveCount,
      3,
      'how many receives so far: the redrive queue takes it after maxReceiveCount',
    );
    assert.equal(lines.warn[1]![1].reason, 'a non-empty string is required');
    assert.equal(deps.events.items.size, 1, 'the valid message in the same batch is stored');
  });

  it('a message whose id names an event stored with another payload is refused like a bad one (a WARN, kept for the redrive queue); the same event again is fine', async () => {
    const deps = fakeDeps();
    const { logger, lines } = recordingLogger();
    const handler = createIngestHandler(deps, { logger });
    await handler({ Records: [record('m-1', '{"id":"ord-1","type":"order.created","payload":{"n":1}}')] }, context);

    const response = await handler(
      {
        Records: [
          record('m-2', '{"id":"ord-1","type":"order.created","payload":{"n":2}}'),
          record('m-3', '{"id":"ord-1","type":"order.created","payload":{"n":1}}'),
        ],
      },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    assert.deepEqual(
      lines.warn.map(([message, attributes]) => [message, attributes.messageId, attributes.field]),
      [['ingest message rejected', 'm-2', 'id']],
    );
    assert.match(deps.events.items.get('ord-1')!.body, /"data":\{"n":1\}/);
  });

  it('an unexpected failure stays an ERROR carrying the error', async () => {
    const deps = fakeDeps();
    const outage = new Error('DynamoDB unreachable');
    deps.events.putIfAbsent = async () => {
      throw outage;
    };
    const { logger, lines } = recordingLogger();

    const response = await createIngestHandler(deps, { logger })(
      { Records: [record('m-1', '{"type":"order.created","payload":{}}')] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    assert.deepEqual(lines.warn, []);
    assert.deepEqual(lines.error, [['ingest batch failed', { messages: 1, error: outage }]]);
  });

  it('publishes the valid messages of a batch together: one enqueue, and an id from the message id when the producer gave none', async () => {
    const deps = fakeDeps();
    deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
    const records = [
      record('m-1', '{"type":"order.created","payload":{}}'),
      record('m-2', '{"id":"evt_own","type":"order.created","payload":{}}'),
    ];
    const handler = createIngestHandler(deps, { logger: recordingLogger().logger });

    const first = await handler({ Records: records }, context);
    // The same messages again (a retried batch): the same ids, so nothing is published twice.
    const again = await handler({ Records: records }, context);

    assert.deepEqual([first, again], [{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    assert.equal(deps.events.stream.length, 2, 'the first batch stored both; the retry stored nothing');
    await fanOutStored(deps);
    assert.deepEqual(
      deps.queue.enqueued.map((call) => call.length),
      [2],
      "one enqueue for the stream's whole batch",
    );
    assert.equal(deps.events.items.size, 2);
    assert.ok(deps.events.items.has('evt_own'));
  });

  describe('checked against the event-type catalog', () => {
    const checked = async (check: EventTypeCheck) => {
      const eventTypes = new InMemoryEventTypeStore();
      await eventTypes.put(
        { name: 'order.created', description: 'x', schemaJson: '{"required":["amount"]}', deprecated: false },
        '2024-05-01T00:00:00.000Z',
      );
      const deps = { ...fakeDeps(), eventTypes, schemaValidator: new AjvSchemaValidator(), eventTypeCheck: check };
      deps.subscriptions.items.set('sub_a', aSubscription({ id: 'sub_a' }));
      const { logger, lines } = recordingLogger();
      const response = await createIngestHandler(deps, { logger })(
        {
          Records: [
            record('m-ok', '{"type":"order.created","payload":{"amount":1}}'),
            record('m-unknown', '{"type":"order.shipped","payload":{}}'),
            record('m-bad', '{"type":"order.created","payload":{}}'),
          ],
        },
        context,
      );
      return { deps, response, lines };
    };

    it('warn: every message is accepted, and each warning is logged with its message and event', async () => {
      const { deps, response, lines } = await checked('warn');
      assert.deepEqual(response, { batchItemFailures: [] });
      assert.equal(deps.events.items.size, 3);
      assert.deepEqual(
        lines.warn.map(([message, a]) => [
          message,
          a.messageId,
          (a.warnings as { field: string }[]).map((w) => w.field),
        ]),
        [
          ['ingest event accepted with warnings', 'm-unknown', ['type']],
          ['ingest event accepted with warnings', 'm-bad', ['payload']],
        ],
      );
    });

    it('refuse: the refused messages stay on the queue (for the redrive queue), as any refusal; the others are stored', async () => {
      const { deps, response, lines } = await checked('refuse');
      assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-unknown' }, { itemIdentifier: 'm-bad' }] });
      assert.equal(deps.events.items.size, 1);
      assert.deepEqual(
        lines.warn.map(([message, a]) => [message, a.messageId, a.field]),
        [
          ['ingest message rejected', 'm-unknown', 'type'],
          ['ingest message rejected', 'm-bad', 'payload'],
        ],
      );
    });
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaContext } from '#local/lambda-context.ts';
import { createFanOutHandler, isStreamEvent } from '#handlers/fan-out.ts';
import { deliveryIdFor } from '#domain/ids.ts';
import type { EventRecord } from '#domain/types.ts';
import { fakeDeps } from '#test/fakes.ts';

const context = lambdaContext('ingest');
const CREATED = '2024-05-01T12:00:00.000Z';
const anEvent = (id: string): EventRecord => ({
  id,
  type: 'order.created',
  body: '{}',
  subscriptionIds: ['sub_a'],
  deliveryIds: [deliveryIdFor(id, 'sub_a', CREATED)],
  createdAt: CREATED,
});
/** The fakes' event store reads `{ event }` as a stream image (a DynamoDB image is the adapter's test). */
const record = (eventName: DynamoDBRecord['eventName'], event: EventRecord): DynamoDBRecord =>
  ({
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: { NewImage: { event } as never, SequenceNumber: event.id },
  }) as DynamoDBRecord;

describe('fan-out handler', () => {
  it("enqueues the first messages of the batch's new events only, in one call", async () => {
    const deps = fakeDeps();
    const handler = createFanOutHandler(deps, { logger: new Logger({ logLevel: 'SILENT' }) });
    const event: DynamoDBStreamEvent = {
      Records: [
        record('INSERT', anEvent('evt_1')),
        record('MODIFY', anEvent('evt_0')),
        record('INSERT', anEvent('evt_2')),
      ],
    };

    await handler(event, context);

    assert.equal(deps.queue.enqueued.length, 1);
    assert.deepEqual(
      deps.queue.messages().map((m) => m.kind === 'fresh' && m.eventId),
      ['evt_1', 'evt_2'],
    );
  });

  it('fails the whole batch when the enqueue fails, for the event source to hand it over again', async () => {
    const deps = fakeDeps();
    deps.queue.enqueue = async () => {
      throw new Error('SQS unavailable');
    };
    const handler = createFanOutHandler(deps, { logger: new Logger({ logLevel: 'SILENT' }) });

    await assert.rejects(handler({ Records: [record('INSERT', anEvent('evt_1'))] }, context), /SQS unavailable/);
  });

  it('tells a stream invocation from an SQS one', () => {
    assert.equal(isStreamEvent({ Records: [record('INSERT', anEvent('evt_1'))] }), true);
    assert.equal(isStreamEvent({ Records: [{ eventSource: 'aws:sqs', body: '{}' }] }), false);
    assert.equal(isStreamEvent({ Records: [] }), false);
  });
});

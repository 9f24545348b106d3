import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Deps } from '#app/deps.ts';
import { fanOut, type FanOutDeps } from '#app/publish/fan-out.ts';
import { withObservability, type Observability } from './observability.ts';

/**
 * The events table's stream (new events only: the event source's filter lets INSERT records
 * through) → the fan-out, the whole batch in one enqueue. A failure fails the batch: the event
 * source hands it over again (halved, until the failing part is alone) and nothing is lost,
 * since the stream keeps a record 24 hours and the sweeper's check of the publish's manifest
 * follows after its grace.
 */
export function createFanOutHandler(deps: FanOutDeps & Pick<Deps, 'events'>, obs: Observability) {
  // No partial batch response: every record of a batch succeeds or fails with its one enqueue.
  return withObservability(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const events = event.Records.flatMap((record) =>
      record.eventName === 'INSERT' && record.dynamodb?.NewImage
        ? [deps.events.fromStreamImage(record.dynamodb.NewImage)]
        : [],
    );
    const messages = await fanOut(deps, events);
    obs.logger.debug('events fanned out', { events: events.length, messages });
    return { batchItemFailures: [] };
  }, obs);
}

/** Whether an invocation comes from a DynamoDB stream (the ingest function has an SQS source too). */
export function isStreamEvent(event: unknown): event is DynamoDBStreamEvent {
  return (event as DynamoDBStreamEvent).Records?.[0]?.eventSource === 'aws:dynamodb';
}

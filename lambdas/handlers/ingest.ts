import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { ValidationError } from '#app/errors.ts';
import type { PublishDeps } from '#app/publish/publish.ts';
import { parsePublishRequest } from '#app/publish/publish-request.ts';
import { publish } from '#app/publish/publish.ts';
import { withObservability, type Observability } from './observability.ts';

/**
 * SQS ingest queue → the same publish path as POST /v1/events. A message that fails validation
 * is reported as failed, so after maxReceiveCount it rests in the ingest redrive queue (alarmed)
 * instead of disappearing. A refusal is the producer's to fix, so it is a WARN naming the field
 * and the rule; anything else is unexpected and stays an ERROR with its stack.
 */
export function createIngestHandler(deps: PublishDeps, obs: Observability) {
  const recordHandler = async (record: SQSRecord) => {
    try {
      const result = await publish(deps, parsePublishRequest(record.body));
      obs.logger.debug('event ingested', { eventId: result.eventId, kind: result.kind, deliveries: result.deliveryIds.length });
    } catch (error) {
      const receives = { messageId: record.messageId, receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1) };
      if (error instanceof ValidationError) obs.logger.warn('ingest message rejected', { ...receives, field: error.field, reason: error.rule });
      else obs.logger.error('ingest message rejected', { ...receives, error: error as Error });
      throw error;
    }
  };
  return withObservability(
    // A processor per invocation: it holds the batch's state, and the local runtime runs concurrent batches through one handler.
    (event: SQSEvent, context) =>
      processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false }),
    obs,
  );
}

import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ValidationError } from '#app/errors.ts';
import type { PublishDeps } from '#app/publish/publish.ts';
import { parseIngestMessage, type PublishRequest } from '#app/publish/publish-request.ts';
import { publishBatch } from '#app/publish/publish.ts';
import { withObservability, type Observability } from './observability.ts';

/**
 * SQS ingest queue → the same publish path as POST /v1/events, a whole batch at once (one
 * manifest, one round of enqueues). A message that fails validation is reported as failed, so
 * after maxReceiveCount it rests in the ingest redrive queue (alarmed) instead of
 * disappearing. A refusal is the producer's to fix, so it is a WARN naming the field and the
 * rule; a failure of the publish itself fails every valid message of the batch (they come back,
 * and ids taken from their message ids make the retry idempotent) and stays an ERROR with its stack.
 */
export function createIngestHandler(deps: PublishDeps, obs: Observability) {
  return withObservability(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failed: string[] = [];
    const valid: { record: SQSRecord; request: PublishRequest }[] = [];
    for (const record of event.Records) {
      const receives = {
        messageId: record.messageId,
        receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
      };
      try {
        valid.push({ record, request: parseIngestMessage(record.body, record.messageId) });
      } catch (error) {
        if (error instanceof ValidationError)
          obs.logger.warn('ingest message rejected', { ...receives, field: error.field, reason: error.rule });
        else obs.logger.error('ingest message rejected', { ...receives, error: error as Error });
        failed.push(record.messageId);
      }
    }
    try {
      const results = await publishBatch(
        deps,
        valid.map((v) => v.request),
      );
      results.forEach((result, i) => {
        const { messageId } = valid[i]!.record;
        // An id already naming another event, or a subscription outside the event's audience, is the producer's to fix,
        // like a refusal: kept for the redrive queue, never dropped.
        if (result.kind === 'refused' || result.kind === 'conflict') {
          const why =
            result.kind === 'refused'
              ? { field: result.error.field, reason: result.error.rule }
              : {
                  field: 'id',
                  reason: `event ${result.eventId} was already published with another type, payload or audience`,
                };
          obs.logger.warn('ingest message rejected', { messageId, ...why });
          failed.push(messageId);
        } else {
          // Accepted as the catalog's `warn` check (or a deprecated type) has it: the producer is told only here.
          if (result.warnings)
            obs.logger.warn('ingest event accepted with warnings', {
              messageId,
              eventId: result.eventId,
              warnings: result.warnings,
            });
          obs.logger.debug('event ingested', {
            messageId,
            eventId: result.eventId,
            kind: result.kind,
            deliveries: result.deliveryIds.length,
          });
        }
      });
    } catch (error) {
      obs.logger.error('ingest batch failed', { messages: valid.length, error: error as Error });
      failed.push(...valid.map((v) => v.record.messageId));
    }
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  }, obs);
}

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { SenderDeps } from '#app/deps.ts';
import { RetryLaterSignal } from '#app/errors.ts';
import { type DeliveryMessageBody, processDelivery, settle } from '#app/send/send.ts';
import { parseQueueMessage } from './sqs-message.ts';
import { withObservability, type Observability } from './observability.ts';

/** SQS → sender: one record per delivery, partial batch response, visibility-timeout backoff. */
export function createSenderHandler(deps: SenderDeps, obs: Observability) {
  const recordHandler = async (record: SQSRecord) => {
    const message = parseQueueMessage<DeliveryMessageBody>(record, ['deliveryId', 'subscriptionId']);
    try {
      const outcome = await settle(deps, record.receiptHandle, message.deliveryId, () => processDelivery(deps, message));
      obs.logger.debug('delivery settled', { deliveryId: message.deliveryId, note: outcome.note });
    } catch (error) {
      if (error instanceof RetryLaterSignal) obs.logger.debug(error.message);
      else obs.logger.error('delivery message failed', { deliveryId: message.deliveryId, error: error as Error });
      throw error;
    }
  };
  return withObservability(
    // A processor per invocation: it holds the batch's state, and the local runtime runs concurrent batches through one handler.
    (event: SQSEvent, context) =>
      processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false, processInParallel: true }),
    obs,
  );
}

import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Deps } from '#app/deps.ts';
import { type DeliveryMessageBody, processDelivery, type SendDeps } from '#app/send/send.ts';
import { settle } from '#app/send/settle.ts';
import { METRICS } from '#config/topology.ts';
import { emfCount } from './emf.ts';
import { parseQueueMessage } from './sqs-message.ts';
import { withObservability, type Observability } from './observability.ts';

/**
 * The message of the one INFO record per attempt (its fields: AttemptReport in send.ts, plus the
 * EMF fields that count it as DeliveryAttempts). Logs Insights queries filter on it
 * (docs/aws.md), and the local pretty format recognises it.
 */
export const ATTEMPT_LOG_MESSAGE = 'delivery attempt';

/**
 * SQS → sender: one record per delivery, visibility-timeout backoff, and the partial batch
 * response built here from what `settle` says of each record: anything but `done` (a planned
 * retry, a stage error, a body that cannot be read) is a batch item failure, so SQS keeps it.
 */
export function createSenderHandler(deps: SendDeps & Pick<Deps, 'queue'>, obs: Observability) {
  /** True when the message is finished with (SQS may delete it). */
  const settleRecord = async (record: SQSRecord): Promise<boolean> => {
    let message: DeliveryMessageBody;
    try {
      message = deps.queue.decode(parseQueueMessage<Record<string, unknown>>(record, ['deliveryId', 'subscriptionId']));
    } catch (error) {
      obs.logger.error('delivery message unreadable', { messageId: record.messageId, error: error as Error });
      return false;
    }
    const receipt = { receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1), sentAtMs: Number(record.attributes?.SentTimestamp ?? Date.now()) };
    const fate = await settle(deps, record.receiptHandle, () => processDelivery(deps, message, receipt));
    if (fate.attempt) obs.logger.info(ATTEMPT_LOG_MESSAGE, { ...fate.attempt, ...emfCount(METRICS.attempts, Date.now()) });
    const { deliveryId } = message;
    if (fate.kind === 'done') {
      obs.logger.debug('delivery settled', { deliveryId, note: fate.note });
      return true;
    }
    if (fate.kind === 'retry') {
      obs.logger.debug(`delivery ${deliveryId} will be retried in ${fate.delaySeconds} s`, { deliveryId, note: fate.note });
    } else {
      obs.logger.error('delivery message failed', { deliveryId, error: fate.error as Error });
    }
    return false;
  };

  return withObservability(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    // In parallel, as Lambda hands the batch over; one record's failure never fails the others.
    const finished = await Promise.all(
      event.Records.map((record) =>
        settleRecord(record).catch((error: unknown) => {
          obs.logger.error('delivery message failed', { messageId: record.messageId, error: error as Error });
          return false;
        }),
      ),
    );
    return { batchItemFailures: event.Records.filter((_, i) => !finished[i]).map((record) => ({ itemIdentifier: record.messageId })) };
  }, obs);
}

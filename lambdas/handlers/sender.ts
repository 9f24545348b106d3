import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Deps } from '#app/deps.ts';
import { type DeliveryMessageBody, processDelivery, type Receipt, type SendDeps } from '#app/send/send.ts';
import { type Later, type MessageFate, onItsOwn, packFinished, settle } from '#app/send/settle.ts';
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
 * SQS → sender: one record per message (one delivery, or a pack of them), visibility-timeout
 * backoff, and the partial batch response built here from what `settle` says of each delivery.
 * A record of one delivery is kept (a batch item failure) when it is anything but `done` (a
 * planned retry, a stage error, a body that cannot be read). A pack's deliveries that are not
 * done leave it as messages of their own, so the pack is kept only when one could not.
 */
export function createSenderHandler(deps: SendDeps & Pick<Deps, 'queue'>, obs: Observability) {
  const settleDelivery = async (message: DeliveryMessageBody, later: Later, receipt: Receipt): Promise<MessageFate> => {
    const fate = await settle(later, () => processDelivery(deps, message, receipt));
    if (fate.attempt) obs.logger.info(ATTEMPT_LOG_MESSAGE, { ...fate.attempt, ...emfCount(METRICS.attempts, Date.now()) });
    const { deliveryId } = message;
    if (fate.kind === 'done') obs.logger.debug('delivery settled', { deliveryId, note: fate.note });
    else if (fate.kind === 'retry') obs.logger.debug(`delivery ${deliveryId} will be retried in ${fate.delaySeconds} s`, { deliveryId, note: fate.note });
    else obs.logger.error('delivery message failed', { deliveryId, error: fate.error as Error });
    return fate;
  };

  /** True when the message is finished with (SQS may delete it). */
  const settleRecord = async (record: SQSRecord): Promise<boolean> => {
    let messages: readonly DeliveryMessageBody[];
    try {
      messages = deps.queue.decode(parseQueueMessage<Record<string, unknown>>(record, []));
    } catch (error) {
      obs.logger.error('delivery message unreadable', { messageId: record.messageId, error: error as Error });
      return false;
    }
    const receipt = { receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1), sentAtMs: Number(record.attributes?.SentTimestamp ?? Date.now()) };
    if (messages.length === 1) {
      const fate = await settleDelivery(messages[0]!, (delaySeconds) => deps.queue.retryLater(record.receiptHandle, delaySeconds), receipt);
      return fate.kind === 'done';
    }
    const fates = await Promise.all(messages.map((m) => settleDelivery(m, (delaySeconds) => deps.queue.enqueue([onItsOwn(m, delaySeconds)]), receipt)));
    return packFinished(fates);
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

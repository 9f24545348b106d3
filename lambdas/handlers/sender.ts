import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Deps } from '#app/deps.ts';
import type { Receipt } from '#app/send/attempt.ts';
import { processDelivery, type SendDeps } from '#app/send/send.ts';
import { divertToSlowLane } from '#app/redelivery/slow-lane.ts';
import {
  messageFinished,
  type Later,
  type MessageFate,
  settle,
  stillOnItsWay,
  waitFor,
} from '#app/redelivery/settle.ts';
import type { DeliveryMessage, DeliveryQueue, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import { METRICS, RETRIES_PER_GATHERED_SEND, RETRY_GATHER_MS } from '#config/topology.ts';
import { gatheredSends } from '#app/redelivery/gathered-sends.ts';
import { emfCount } from './emf.ts';
import { parseQueueMessage } from './sqs-message.ts';
import { withObservability, type Observability } from './observability.ts';

/**
 * The message of the one INFO record per attempt (its fields: AttemptReport in app/send/outcome.ts, plus the
 * EMF fields that count it as DeliveryAttempts). Logs Insights queries filter on it
 * (docs/aws.md), and the local pretty format recognises it.
 */
export const ATTEMPT_LOG_MESSAGE = 'delivery attempt';

/**
 * SQS → sender: one record per message (one delivery, or a pack of them), and the partial batch
 * response built here from what `settle` says of each delivery. A planned retry goes as a
 * message of its own, sent with its delay together with the other retries of the moment; any
 * other wait is through its message's visibility when it is alone in it and the wait is short,
 * else a message of its own too (`waitFor`, app/redelivery/settle.ts). A record is kept (a batch item
 * failure) unless every delivery in it is done or moved to a message of its own; one whose body
 * cannot be read is kept too.
 */
export function createSenderHandler(
  deps: SendDeps & Pick<Deps, 'queue' | 'slowLane' | 'inFlightWaitSeconds'>,
  obs: Observability,
) {
  // Each lane's queue, and its planned retries from every record in flight here gathered into one send (gathered-sends.ts).
  const laneOf = (queue: DeliveryQueue) => ({
    queue,
    sendNext: gatheredSends((messages) => queue.enqueue(messages), RETRY_GATHER_MS, RETRIES_PER_GATHERED_SEND),
  });
  const lanes = { main: laneOf(deps.queue), slow: laneOf(deps.slowLane) };
  const settleDelivery = async (
    message: ReceivedDeliveryMessage,
    later: Later,
    receipt: Receipt,
    mainLane: boolean,
  ): Promise<MessageFate> => {
    const fate = await settle(
      later,
      async () =>
        stillOnItsWay(message, deps.clock.now()) ??
        (mainLane ? await divertToSlowLane(deps, message) : undefined) ??
        processDelivery(deps, message, receipt),
    );
    if (fate.attempt)
      obs.logger.info(ATTEMPT_LOG_MESSAGE, { ...fate.attempt, ...emfCount(METRICS.attempts, Date.now()) });
    const { deliveryId } = message;
    if (fate.kind === 'done') obs.logger.debug('delivery settled', { deliveryId, note: fate.note });
    else if (fate.kind === 'retry')
      obs.logger.debug(`delivery ${deliveryId} will be retried in ${fate.delaySeconds} s`, {
        deliveryId,
        note: fate.note,
      });
    else obs.logger.error('delivery message failed', { deliveryId, error: fate.error as Error });
    return fate;
  };

  /** True when the message is finished with (SQS may delete it). */
  const settleRecord = async (record: SQSRecord): Promise<boolean> => {
    let messages: readonly ReceivedDeliveryMessage[];
    try {
      messages = deps.queue.decode(parseQueueMessage<Record<string, unknown>>(record, []));
    } catch (error) {
      obs.logger.error('delivery message unreadable', { messageId: record.messageId, error: error as Error });
      return false;
    }
    const receipt = { receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1) };
    // The slow lane's own deliveries are attempted there, whatever their subscription's mark says.
    const mainLane = !deps.slowLane.receivedFrom(record.eventSourceARN);
    // A delivery's next message stays in the lane it came from: a slow endpoint's retries and long
    // waits do not pass through the main lane only to be sent on from there (a send, a receive and
    // a main-lane slot each time), and deciding reads nothing.
    const lane = mainLane ? lanes.main : lanes.slow;
    const queue = {
      // The receipt handle is the queue's it came from.
      setVisibility: (delaySeconds: number) => lane.queue.setVisibility(record.receiptHandle, delaySeconds),
      send: (message: DeliveryMessage) => lane.queue.enqueue([message]),
      sendNext: lane.sendNext,
    };
    const options = {
      alone: messages.length === 1,
      inFlightWaitSeconds: deps.inFlightWaitSeconds,
      now: () => deps.clock.now(),
    };
    const fates = await Promise.all(
      messages.map((m) => settleDelivery(m, waitFor(m, options, queue), receipt, mainLane)),
    );
    return messageFinished(fates);
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
    return {
      batchItemFailures: event.Records.filter((_, i) => !finished[i]).map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  }, obs);
}

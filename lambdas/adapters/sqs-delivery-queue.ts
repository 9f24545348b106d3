import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import type { DeliveryMessage, DeliveryQueue } from '#ports/delivery-queue.ts';
import { decodeDeliveryMessage, encodeDeliveryMessage } from './delivery-message-codec.ts';
import { QueueSendError } from './errors.ts';

const SQS_MAX_MESSAGE_DELAY = 900;

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(messages: readonly DeliveryMessage[]): Promise<void> {
    const batches: DeliveryMessage[][] = [];
    for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
    await Promise.all(batches.map((batch) => this.sendBatch(batch)));
  }

  private async sendBatch(batch: readonly DeliveryMessage[]): Promise<void> {
    let pending = batch.map((m, i) => ({ Id: String(i), MessageBody: encodeDeliveryMessage(m), DelaySeconds: Math.min(SQS_MAX_MESSAGE_DELAY, Math.max(0, Math.round(m.delaySeconds ?? 0))) }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === 4) throw new QueueSendError(`${pending.length} messages could not be enqueued after ${round} tries`);
      if (round > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** round));
      const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }));
      const failed = new Set((out.Failed ?? []).map((f) => f.Id));
      pending = pending.filter((e) => failed.has(e.Id));
    }
  }

  decode(wire: Readonly<Record<string, unknown>>) {
    return decodeDeliveryMessage(wire);
  }

  async retryLater(receiptHandle: string, delaySeconds: number): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.max(1, Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds))),
      }),
    );
  }
}

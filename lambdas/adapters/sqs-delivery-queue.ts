import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_MESSAGE_DELAY_SECONDS } from '#config/topology.ts';
import { MAX_DELAY_SECONDS } from '#domain/retry-policy.ts';
import type { DeliveryMessage, DeliveryQueue } from '#ports/delivery-queue.ts';
import { decodeDeliveryMessages, encodeDeliveryMessages } from './delivery-message-codec.ts';
import { QueueSendError } from './errors.ts';

/** SQS's own limits for a SendMessageBatch: its entries and total payload (a message's delay: MAX_MESSAGE_DELAY_SECONDS). */
const SQS_BATCH_ENTRIES = 10;
const SQS_BATCH_BYTES = 256 * 1024;

interface Entry {
  readonly body: string;
  readonly bytes: number;
  readonly delaySeconds: number;
}

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** A queue's ARN ends in its name, the last segment of its URL, in AWS and in the local emulators alike. */
  receivedFrom(eventSourceArn: string | undefined): boolean {
    const name = this.queueUrl.slice(this.queueUrl.lastIndexOf('/') + 1);
    return eventSourceArn?.endsWith(`:${name}`) === true;
  }

  /** Deliveries due at the same second are packed (delivery-message-codec.ts); the messages go in batches of 10 within SQS's payload limit. */
  async enqueue(messages: readonly DeliveryMessage[]): Promise<void> {
    const byDelay = new Map<number, DeliveryMessage[]>();
    for (const m of messages) {
      const delaySeconds = Math.min(MAX_MESSAGE_DELAY_SECONDS, Math.max(0, Math.round(m.delaySeconds ?? 0)));
      const group = byDelay.get(delaySeconds);
      if (group) group.push(m);
      else byDelay.set(delaySeconds, [m]);
    }
    const entries: Entry[] = [...byDelay].flatMap(([delaySeconds, group]) =>
      encodeDeliveryMessages(group).map((body) => ({ body, bytes: Buffer.byteLength(body), delaySeconds })),
    );
    await Promise.all(batchesOf(entries).map((batch) => this.sendBatch(batch)));
  }

  private async sendBatch(batch: readonly Entry[]): Promise<void> {
    let pending = batch.map((e, i) => ({ Id: String(i), MessageBody: e.body, DelaySeconds: e.delaySeconds }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === 4)
        throw new QueueSendError(`${pending.length} messages could not be enqueued after ${round} tries`);
      if (round > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** round));
      const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }));
      const failed = new Set((out.Failed ?? []).map((f) => f.Id));
      pending = pending.filter((e) => failed.has(e.Id));
    }
  }

  decode(wire: Readonly<Record<string, unknown>>) {
    return decodeDeliveryMessages(wire);
  }

  async setVisibility(receiptHandle: string, delaySeconds: number): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.max(1, Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds))),
      }),
    );
  }
}

/** Consecutive runs of at most 10 entries and 256 KiB: one SendMessageBatch each. */
function batchesOf(entries: readonly Entry[]): Entry[][] {
  const batches: Entry[][] = [];
  let batch: Entry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (batch.length === SQS_BATCH_ENTRIES || (batch.length > 0 && bytes + entry.bytes > SQS_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(entry);
    bytes += entry.bytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

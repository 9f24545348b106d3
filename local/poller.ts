import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventSourceDef } from '#config/topology.ts';
import { lambdaContext, type Invoke } from './lambda-context.ts';

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly source: EventSourceDef;
  /** Concurrent batches, as the event source mapping's MaximumConcurrency. */
  readonly concurrency: number;
  readonly handler: Invoke<SQSEvent, SQSBatchResponse | undefined>;
  readonly onError: (error: unknown) => void;
  /** Long-poll wait per receive; short so a stop is prompt. */
  readonly waitSeconds?: number;
  /**
   * The visibility timeout of each receive, in place of the queue's: how soon a message whose
   * process died (SIGKILL) comes back to the restarted one.
   */
  readonly visibilityTimeoutSeconds?: number;
}

function toRecord(m: Message, arn: string): SQSRecord {
  const a = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: 'us-east-1',
  };
}

/**
 * Does what Lambda's SQS event source mapping does: receive up to batchSize messages (waiting
 * up to the batching window to fill a batch), invoke the handler with a real SQSEvent, delete
 * the messages not named in batchItemFailures, and leave everything if the invocation throws.
 */
export class QueuePoller {
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.concurrency; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        const batch = await this.receiveBatch();
        if (batch.length > 0) await this.invoke(batch);
      } catch (error) {
        if (!this.running) return;
        this.options.onError(error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async receiveBatch(): Promise<Message[]> {
    const { sqs, queueUrl, source } = this.options;
    const batch: Message[] = [];
    const windowEnds = Date.now() + source.maxBatchingWindowSeconds * 1000;
    do {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, source.batchSize - batch.length),
          ...(this.options.visibilityTimeoutSeconds
            ? { VisibilityTimeout: this.options.visibilityTimeoutSeconds }
            : {}),
          WaitTimeSeconds: batch.length > 0 ? 0 : (this.options.waitSeconds ?? 1),
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const got = out.Messages ?? [];
      batch.push(...got);
      if (got.length === 0 && (batch.length === 0 || Date.now() >= windowEnds)) break;
      if (got.length === 0) await new Promise((r) => setTimeout(r, 50));
    } while (this.running && batch.length < source.batchSize && Date.now() < windowEnds);
    return batch;
  }

  private async invoke(batch: Message[]): Promise<void> {
    const { sqs, queueUrl, queueArn, handler, source } = this.options;
    const records = batch.map((m) => toRecord(m, queueArn));
    let failed: Set<string>;
    try {
      const response = await handler({ Records: records }, lambdaContext(source.function));
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A failed invocation deletes nothing: every message comes back after its visibility timeout.
      this.options.onError(error);
      return;
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    for (let i = 0; i < done.length; i += 10) {
      const chunk = done.slice(i, i + 10);
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
  }
}

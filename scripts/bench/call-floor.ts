import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#adapters/dynamodb.ts';
import { PAYLOAD_1KB, startBenchStack } from './bench-stack.ts';
import { pool } from './stats.ts';

export interface CallFloorRun {
  readonly deliveries: number;
  /** Deliveries a second when nothing but their AWS calls is made. */
  readonly perSecond: number;
}

/** Receivers draining the floor's queue, as the local runtime runs 4 concurrent sender batches. */
const RECEIVERS = 4;

/**
 * The AWS calls a first-try, fan-out-1 delivery published over HTTP makes (the cost section's
 * "Where the cost goes" lists them), made alone through the same SDK clients against the same
 * emulators on the same thread layout, with no HTTP publish, no webhook POST and no Hookline
 * code: per event a conditional PutItem of a 1 KB event, a PutItem of a one-event manifest and
 * a SendMessageBatch of its one message (32 publishes at a time); per received batch of up to
 * 10 messages a conditional PutItem of each delivery's row and one DeleteMessageBatch. Whatever
 * the runtime does beyond these calls can only lower the rate, so this is the ceiling of the
 * local end-to-end figure on this machine.
 */
export async function measureCallFloor(deliveries: number): Promise<CallFloorRun> {
  const stack = await startBenchStack();
  try {
    const { dynamodb, sqs } = stack.runtime.clients;
    const doc = documentClient(dynamodb);
    const { EVENTS_TABLE, INGEST_MANIFESTS_TABLE, DELIVERIES_TABLE } = stack.runtime.env;
    // A queue of its own: the runtime's pollers never see these messages.
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'hookline-bench-call-floor' }))).QueueUrl!;
    const body = JSON.stringify({ type: 'bench.floor', data: PAYLOAD_1KB });
    const now = () => new Date().toISOString();
    let recorded = 0;
    let lastRecordedAt = 0;
    const deadline = Date.now() + 600_000;
    const receive = async () => {
      while (recorded < deliveries && Date.now() < deadline) {
        const { Messages: messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        await Promise.all(
          messages.map((m) => {
            const { id, n } = JSON.parse(m.Body!) as { id: string; n: number };
            const at = now();
            const row = {
              subscriptionShard: `sub_floor#${n % 16}`,
              listKey: `${at}#${id}`,
              id,
              eventId: id,
              state: 'delivered',
              attempts: 1,
              attemptSeq: 1,
              createdAt: at,
              updatedAt: at,
              firstAttempt: { seq: 1, attempt: 1, startedAt: at, durationMs: 1, status: 200 },
            };
            return doc.send(
              new PutCommand({
                TableName: DELIVERIES_TABLE,
                Item: row,
                ConditionExpression: 'attribute_not_exists(listKey)',
              }),
            );
          }),
        );
        if (messages.length > 0)
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        recorded += messages.length;
        lastRecordedAt = performance.now();
      }
    };
    const started = performance.now();
    const receivers = Array.from({ length: RECEIVERS }, receive);
    await pool(deliveries, 32, async (i) => {
      const id = `evt_floor${i}`;
      await doc.send(
        new PutCommand({
          TableName: EVENTS_TABLE,
          Item: { id, type: 'bench.floor', body, createdAt: now() },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
      await doc.send(
        new PutCommand({
          TableName: INGEST_MANIFESTS_TABLE,
          Item: { shard: `floor#${i % 16}`, key: `${now()}#${id}`, ids: [id] },
        }),
      );
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: [{ Id: '0', MessageBody: JSON.stringify({ id, n: i, body }) }],
        }),
      );
    });
    // Timed to the last row written: the other receivers' long polls may take a second more to end.
    await Promise.all(receivers);
    if (recorded < deliveries) throw new Error(`call floor: only ${recorded} of ${deliveries} recorded within 600 s`);
    return { deliveries, perSecond: deliveries / ((lastRecordedAt - started) / 1000) };
  } finally {
    await stack.stop();
  }
}

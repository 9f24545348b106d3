import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { MinHeap } from './heap.ts';
import { answerInMemory, serviceError } from './short-circuit.ts';
import type { SimTime } from './time.ts';

/**
 * Amazon SQS standard-queue limits the model enforces, from the SQS Developer Guide's quotas
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html):
 * at most 120,000 in-flight messages per queue (ReceiveMessage then fails with OverLimit),
 * delays of 0 to 900 s, 10 entries per batch call, visibility timeouts up to 12 hours.
 */
export const SQS_LIMITS = {
  inFlightPerQueue: 120_000,
  maxDelaySeconds: 900,
  maxBatchEntries: 10,
  /** A message, and a whole batch, at most 256 KiB. */
  maxPayloadBytes: 262_144,
  maxVisibilitySeconds: 43_200,
} as const;

interface Message {
  readonly id: string;
  readonly body: string;
  readonly firstSentAt: number;
  visibleAt: number;
  receiveCount: number;
  /** Bumped whenever its visibility changes, so older heap entries for it are ignored. */
  version: number;
  inFlight: boolean;
  deleted: boolean;
  handle?: string;
}

export interface QueueStats {
  readonly sent: number;
  readonly received: number;
  readonly deleted: number;
  readonly overLimitRefusals: number;
  /** Receives that returned a message or more: the ones a busy queue pays for (an idle mapping's long polls are a fixed cost). */
  readonly nonEmptyReceives: number;
  readonly calls: Readonly<Record<string, number>>;
  readonly inFlightPeak: number;
  readonly oldestAgeMsPeak: number;
}

/** One standard queue: delayed and in-flight messages wait in a heap until they show, the visible in arrival order. */
export class SimQueue {
  private readonly waiting = new MinHeap<{ message: Message; version: number }>();
  private readonly visible: Message[] = [];
  private visibleHead = 0;
  private readonly byHandle = new Map<string, Message>();
  private seq = 0;
  private inFlight = 0;
  private stored = 0;
  private readonly counts = {
    sent: 0,
    received: 0,
    deleted: 0,
    overLimitRefusals: 0,
    nonEmptyReceives: 0,
    inFlightPeak: 0,
    oldestAgeMsPeak: 0,
  };
  readonly calls: Record<string, number> = {};

  constructor(
    readonly name: string,
    private readonly time: SimTime,
    private readonly inFlightLimit: number = SQS_LIMITS.inFlightPerQueue,
  ) {}

  get url(): string {
    return `https://sqs.us-east-1.amazonaws.com/000000000000/${this.name}`;
  }

  count(call: string): void {
    this.calls[call] = (this.calls[call] ?? 0) + 1;
  }

  send(body: string, delaySeconds = 0): string {
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > SQS_LIMITS.maxDelaySeconds)
      throw serviceError('InvalidParameterValue', `DelaySeconds must be 0 to ${SQS_LIMITS.maxDelaySeconds}`);
    const now = this.time.now();
    const message: Message = {
      id: `${this.name}-${++this.seq}`,
      body,
      firstSentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
      version: 0,
      inFlight: false,
      deleted: false,
    };
    this.stored++;
    this.counts.sent++;
    if (delaySeconds === 0) this.visible.push(message);
    else this.waiting.push(message.visibleAt, { message, version: 0 });
    return message.id;
  }

  /** Up to `max` visible messages, now invisible for `visibilitySeconds`; 'over-limit' when the in-flight budget is spent. */
  receive(max: number, visibilitySeconds: number): SQSRecord[] | 'over-limit' {
    this.count('ReceiveMessage');
    this.release();
    if (this.inFlight >= this.inFlightLimit) {
      this.counts.overLimitRefusals++;
      return 'over-limit';
    }
    const now = this.time.now();
    const records: SQSRecord[] = [];
    while (records.length < max && this.visibleHead < this.visible.length && this.inFlight < this.inFlightLimit) {
      const message = this.visible[this.visibleHead++]!;
      if (message.deleted || message.inFlight) continue;
      message.receiveCount++;
      message.inFlight = true;
      message.handle = `${message.id}#${message.receiveCount}`;
      this.byHandle.set(message.handle, message);
      this.inFlight++;
      this.hide(message, now + visibilitySeconds * 1000);
      records.push(record(message, this.name));
    }
    this.compact();
    this.counts.received += records.length;
    if (records.length > 0) this.counts.nonEmptyReceives++;
    this.counts.inFlightPeak = Math.max(this.counts.inFlightPeak, this.inFlight);
    return records;
  }

  changeVisibility(handle: string, seconds: number): void {
    const message = this.byHandle.get(handle);
    if (!message || message.deleted) throw serviceError('ReceiptHandleIsInvalid', `no message has handle ${handle}`);
    if (seconds < 0 || seconds > SQS_LIMITS.maxVisibilitySeconds)
      throw serviceError('InvalidParameterValue', `VisibilityTimeout must be 0 to ${SQS_LIMITS.maxVisibilitySeconds}`);
    this.release();
    if (!message.inFlight) throw serviceError('MessageNotInflight', `message ${message.id} is not in flight`);
    this.hide(message, this.time.now() + seconds * 1000);
  }

  delete(handle: string): void {
    const message = this.byHandle.get(handle);
    if (!message || message.deleted) return;
    if (message.handle !== handle) return;
    message.deleted = true;
    this.byHandle.delete(handle);
    if (message.inFlight) this.inFlight--;
    message.inFlight = false;
    this.stored--;
    this.counts.deleted++;
  }

  /** Age of the oldest visible message (CloudWatch's ApproximateAgeOfOldestMessage, near enough). */
  oldestAgeMs(): number {
    this.release();
    const now = this.time.now();
    for (let i = this.visibleHead; i < this.visible.length; i++) {
      const m = this.visible[i]!;
      if (!m.deleted && !m.inFlight) {
        const age = now - m.firstSentAt;
        this.counts.oldestAgeMsPeak = Math.max(this.counts.oldestAgeMsPeak, age);
        return age;
      }
    }
    return 0;
  }

  depth(): { readonly stored: number; readonly inFlight: number } {
    return { stored: this.stored, inFlight: this.inFlight };
  }

  stats(): QueueStats {
    return { ...this.counts, calls: { ...this.calls } };
  }

  private hide(message: Message, untilMs: number): void {
    message.version++;
    message.visibleAt = untilMs;
    this.waiting.push(untilMs, { message, version: message.version });
  }

  /** Moves every message whose invisibility has ended to the visible line; one in flight returns to the queue. */
  private release(): void {
    const now = this.time.now();
    while ((this.waiting.peekKey() ?? Number.POSITIVE_INFINITY) <= now) {
      const { message, version } = this.waiting.pop()!;
      if (message.deleted || version !== message.version) continue;
      if (message.inFlight) {
        message.inFlight = false;
        this.inFlight--;
        if (message.handle) this.byHandle.delete(message.handle);
      }
      this.visible.push(message);
    }
  }

  private compact(): void {
    if (this.visibleHead > 50_000 && this.visibleHead * 2 > this.visible.length) {
      this.visible.splice(0, this.visibleHead);
      this.visibleHead = 0;
    }
  }
}

function record(message: Message, queue: string): SQSRecord {
  return {
    messageId: message.id,
    receiptHandle: message.handle!,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.firstSentAt),
      SenderId: 'model',
      ApproximateFirstReceiveTimestamp: String(message.firstSentAt),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
    awsRegion: 'us-east-1',
  };
}

/** SQS for the model: queues by URL, and a real SQSClient answered from them after a simulated latency. */
export class SimSqs {
  private readonly queues = new Map<string, SimQueue>();

  constructor(
    private readonly time: SimTime,
    private readonly latencyMs: (call: string) => number,
  ) {}

  queue(name: string, inFlightLimit?: number): SimQueue {
    const queue = new SimQueue(name, this.time, inFlightLimit);
    this.queues.set(queue.url, queue);
    return queue;
  }

  client(): SQSClient {
    const client = new SQSClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'model', secretAccessKey: 'model' },
    });
    return answerInMemory(client, (name, input) => this.answer(name, input));
  }

  private async answer(name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const queue = this.queues.get(String(input.QueueUrl));
    if (!queue) throw serviceError('QueueDoesNotExist', `no queue at ${String(input.QueueUrl)}`);
    const call = name.replace(/Command$/, '');
    queue.count(call);
    await this.time.sleep(this.latencyMs(call));
    if (call === 'SendMessageBatch') {
      const entries = input.Entries as { Id: string; MessageBody: string; DelaySeconds?: number }[];
      if (entries.length === 0 || entries.length > SQS_LIMITS.maxBatchEntries)
        throw serviceError('TooManyEntriesInBatchRequest', `a batch holds 1 to ${SQS_LIMITS.maxBatchEntries} entries`);
      if (entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody), 0) > SQS_LIMITS.maxPayloadBytes)
        throw serviceError('BatchRequestTooLong', `a batch carries at most ${SQS_LIMITS.maxPayloadBytes} bytes`);
      const Successful = entries.map((e) => ({ Id: e.Id, MessageId: queue.send(e.MessageBody, e.DelaySeconds ?? 0) }));
      return { Successful, Failed: [] };
    }
    if (call === 'SendMessage' && Buffer.byteLength(String(input.MessageBody)) > SQS_LIMITS.maxPayloadBytes)
      throw serviceError('InvalidParameterValue', `a message carries at most ${SQS_LIMITS.maxPayloadBytes} bytes`);
    if (call === 'SendMessage')
      return { MessageId: queue.send(String(input.MessageBody), Number(input.DelaySeconds ?? 0)) };
    if (call === 'ChangeMessageVisibility') {
      queue.changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout));
      return {};
    }
    if (call === 'DeleteMessage') {
      queue.delete(String(input.ReceiptHandle));
      return {};
    }
    throw serviceError('UnsupportedOperation', `the model's SQS does not answer ${call}`);
  }
}

import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { FunctionKey } from '#config/topology.ts';
import { lambdaContext, type Invoke } from '#local/lambda-context.ts';
import { currentCaller } from './caller.ts';
import type { SimQueue } from './sqs.ts';
import type { SimTime } from './time.ts';

/**
 * Lambda limits the model enforces, from the Lambda Developer Guide:
 * - 1,000 concurrent executions per account and Region by default, reserved concurrency
 *   carved out of it (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html);
 * - an SQS event source mapping starts with 5 concurrent batches and adds up to 300 a minute
 *   while messages wait, to at most 1,250, or its MaximumConcurrency
 *   (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html, "Scaling and processing").
 */
export const LAMBDA_LIMITS = {
  accountConcurrency: 1_000,
  mappingInitialBatches: 5,
  mappingScaleUpPerMinute: 300,
  mappingMaxBatches: 1_250,
} as const;

/** How often a batch filling within its window receives again (Lambda's pollers long-poll; a few receives a second is what they cost). */
const WINDOW_POLL_MS = 200;

/** The account's unreserved concurrency, shared by every function without a reservation. */
export class AccountConcurrency {
  private inUse = 0;
  peak = 0;

  constructor(readonly limit: number = LAMBDA_LIMITS.accountConcurrency) {}

  take(): boolean {
    if (this.inUse >= this.limit) return false;
    this.inUse++;
    this.peak = Math.max(this.peak, this.inUse);
    return true;
  }

  give(): void {
    this.inUse--;
  }
}

export interface FunctionStats {
  readonly invocations: number;
  readonly throttles: number;
  readonly errors: number;
  readonly coldStarts: number;
  readonly peakConcurrency: number;
}

export type Invocation<R> = { readonly kind: 'done'; readonly value: R } | { readonly kind: 'throttled' };

/**
 * One function's execution environments. Each is built by `make` on its cold start (after
 * `initMs`), so it has its own caches as a Lambda container does, and serves one invocation at
 * a time. A reservation caps it and is taken from the account; without one it draws on the
 * account's unreserved pool, and a full pool throttles.
 */
export class FunctionPool<E, R> {
  private readonly idle: Invoke<E, R>[] = [];
  private busy = 0;
  private readonly counts = { invocations: 0, throttles: 0, errors: 0, coldStarts: 0, peakConcurrency: 0 };

  constructor(
    readonly fn: FunctionKey,
    private readonly options: {
      readonly time: SimTime;
      readonly account: AccountConcurrency;
      readonly make: () => Invoke<E, R>;
      readonly initMs: number;
      readonly reserved?: number;
    },
  ) {}

  get concurrency(): number {
    return this.busy;
  }

  async invoke(event: E): Promise<Invocation<R>> {
    const { reserved, account } = this.options;
    if (reserved !== undefined ? this.busy >= reserved : !account.take()) {
      this.counts.throttles++;
      return { kind: 'throttled' };
    }
    this.busy++;
    this.counts.peakConcurrency = Math.max(this.counts.peakConcurrency, this.busy);
    this.counts.invocations++;
    try {
      let handler = this.idle.pop();
      if (!handler) {
        this.counts.coldStarts++;
        await this.options.time.sleep(this.options.initMs);
        handler = this.options.make();
      }
      try {
        const run = handler;
        return { kind: 'done', value: await currentCaller.run(this.fn, () => run(event, lambdaContext(this.fn))) };
      } catch (error) {
        this.counts.errors++;
        throw error;
      } finally {
        this.idle.push(handler);
      }
    } finally {
      this.busy--;
      if (reserved === undefined) account.give();
    }
  }

  stats(): FunctionStats {
    return { ...this.counts };
  }
}

export interface MappingSettings {
  readonly batchSize: number;
  /** MaximumBatchingWindowInSeconds: how long a batch that is not full yet waits for more (0: handed over as received). */
  readonly batchingWindowSeconds?: number;
  readonly maxConcurrency: number;
  readonly visibilitySeconds: number;
}

/**
 * An SQS event source mapping: batches received and handed to the function, the messages its
 * partial batch response names left to come back, the rest deleted. It scales as Lambda's
 * does: from 5 concurrent batches, one more each 200 ms while messages wait in the queue (busy
 * batches or not: the backlog drives it), to its maximum; an empty receive retires a batch above the 5.
 */
export class QueueMapping {
  private pollers = 0;
  private running = false;
  peakPollers = 0;
  deleteCalls = 0;

  constructor(
    private readonly queue: SimQueue,
    private readonly pool: FunctionPool<SQSEvent, SQSBatchResponse | undefined>,
    private readonly settings: MappingSettings,
    private readonly time: SimTime,
  ) {}

  private get ceiling(): number {
    return Math.min(this.settings.maxConcurrency, LAMBDA_LIMITS.mappingMaxBatches);
  }

  start(): void {
    this.running = true;
    for (let i = 0; i < Math.min(LAMBDA_LIMITS.mappingInitialBatches, this.ceiling); i++) this.spawn();
    void this.scale();
  }

  stop(): void {
    this.running = false;
  }

  private async scale(): Promise<void> {
    while (this.running) {
      await this.time.sleep(60_000 / LAMBDA_LIMITS.mappingScaleUpPerMinute);
      const { stored, inFlight } = this.queue.depth();
      if (this.running && stored > inFlight && this.pollers < this.ceiling) this.spawn();
    }
  }

  private spawn(): void {
    this.pollers++;
    this.peakPollers = Math.max(this.peakPollers, this.pollers);
    void this.poll();
  }

  private async poll(): Promise<void> {
    while (this.running) {
      const batch = this.queue.receive(this.settings.batchSize, this.settings.visibilitySeconds);
      if (batch === 'over-limit') {
        await this.time.sleep(1000);
        continue;
      }
      if (batch.length === 0) {
        if (this.pollers > Math.min(LAMBDA_LIMITS.mappingInitialBatches, this.ceiling)) break;
        await this.time.sleep(50);
        continue;
      }
      await this.handOver({ Records: await this.filled(batch) });
    }
    this.pollers--;
  }

  /**
   * A batch gathered as Lambda does with a batching window: received until it is full or the
   * window has passed since its first message. The messages' visibility runs from their own receive.
   */
  private async filled(batch: SQSRecord[]): Promise<SQSRecord[]> {
    const windowMs = (this.settings.batchingWindowSeconds ?? 0) * 1000;
    const until = this.time.now() + windowMs;
    while (batch.length < this.settings.batchSize && this.time.now() < until) {
      await this.time.sleep(Math.min(WINDOW_POLL_MS, until - this.time.now()));
      const more = this.queue.receive(this.settings.batchSize - batch.length, this.settings.visibilitySeconds);
      if (more !== 'over-limit') batch.push(...more);
    }
    return batch;
  }

  /** Invokes until accepted (a throttled invocation is retried, as Lambda does, while the messages stay hidden). */
  private async handOver(event: SQSEvent): Promise<void> {
    const hiddenUntil = this.time.now() + this.settings.visibilitySeconds * 1000;
    for (;;) {
      let outcome: Invocation<SQSBatchResponse | undefined>;
      try {
        outcome = await this.pool.invoke(event);
      } catch {
        return; // a failed invocation: every message comes back after its visibility timeout
      }
      if (outcome.kind === 'done') {
        const kept = new Set((outcome.value?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        const done = event.Records.filter((r) => !kept.has(r.messageId));
        for (const r of done) this.queue.delete(r.receiptHandle);
        if (done.length > 0) {
          this.deleteCalls++;
          this.queue.count('DeleteMessageBatch');
        }
        return;
      }
      if (this.time.now() + 100 >= hiddenUntil) return;
      await this.time.sleep(100);
    }
  }
}

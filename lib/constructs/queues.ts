import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { EVENT_SOURCES, FUNCTIONS, QUEUES, type QueueKey } from '../../lambdas/config/topology.ts';
import { TopologyError } from '../errors.ts';
import { markTopology } from '../topology-metadata.ts';

export interface HooklineQueueProps {
  /** The QUEUES entry to build: visibility timeout, retention, maxReceiveCount and redrive retention come from it. */
  readonly queueKey: QueueKey;
}

/**
 * One work queue and its own redrive queue. The redrive queue catches poison messages only
 * (a handler that crashes on a message `maxReceiveCount` times); business retries stay on
 * the work queue via visibility-timeout backoff, and business dead letters live in DynamoDB.
 * Both queues use SQS-managed SSE and deny any request that is not over TLS.
 */
export class HooklineQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly redriveQueue: sqs.Queue;
  readonly queueKey: QueueKey;

  constructor(scope: Construct, id: string, props: HooklineQueueProps) {
    super(scope, id);
    const def = QUEUES[props.queueKey];
    this.queueKey = props.queueKey;
    assertConsumerFits(props.queueKey);

    this.redriveQueue = new sqs.Queue(this, 'Redrive', {
      retentionPeriod: Duration.seconds(def.redrive.retentionSeconds),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    markTopology(this.redriveQueue, `redrive/${props.queueKey}`);
    acknowledgeNag(this.redriveQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself the redrive (dead-letter) queue of the work queue next to it; an alarm fires as soon as it holds a message.',
      },
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason:
          'This queue is itself the redrive (dead-letter) queue; nothing consumes it automatically, so a message can never be received often enough to need a further redrive.',
      },
    ]);

    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(def.retentionSeconds),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.redriveQueue, maxReceiveCount: def.maxReceiveCount },
    });
    markTopology(this.queue, `queue/${props.queueKey}`);
  }
}

/**
 * AWS recommends a visibility timeout of at least 6x the consumer's timeout for Lambda
 * event sources (an in-progress batch must not reappear while the function may still be
 * working on it, including the ESM's own retries when throttled).
 */
function assertConsumerFits(queueKey: QueueKey): void {
  const def = QUEUES[queueKey];
  for (const source of EVENT_SOURCES.filter((s) => s.queue === queueKey)) {
    const timeout = FUNCTIONS[source.function].timeoutSeconds;
    if (def.visibilityTimeoutSeconds < 6 * timeout) {
      throw new TopologyError(
        `queue '${queueKey}' has visibility timeout ${def.visibilityTimeoutSeconds}s, below 6x the ${source.function} timeout (${timeout}s)`,
      );
    }
  }
  if (def.redrive.retentionSeconds < def.retentionSeconds) {
    // SQS keeps a redriven message's original enqueue time, so a shorter redrive retention
    // could delete a poison message the moment it arrives.
    throw new TopologyError(`queue '${queueKey}' redrive retention is shorter than its own retention`);
  }
}

/** Every queue pair from QUEUES. */
export class HooklineQueues extends Construct {
  readonly ingest: HooklineQueue;
  readonly delivery: HooklineQueue;
  /** The slow lane (domain/slow-lane.ts): the sender's second source. */
  readonly slowDelivery: HooklineQueue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.ingest = new HooklineQueue(this, 'Ingest', { queueKey: 'ingest' });
    this.delivery = new HooklineQueue(this, 'Delivery', { queueKey: 'delivery' });
    this.slowDelivery = new HooklineQueue(this, 'SlowDelivery', { queueKey: 'slowDelivery' });
  }

  /** Every pair by its QUEUES key. */
  get all(): Readonly<Record<QueueKey, HooklineQueue>> {
    return { ingest: this.ingest, delivery: this.delivery, slowDelivery: this.slowDelivery };
  }
}

import { Construct } from 'constructs';
import { TABLE_GRANTS } from './access.ts';
import type { EnvironmentValues } from './environment.ts';
import { connectQueue } from './event-source.ts';
import type { SharedFunctionOptions } from './function-options.ts';
import { HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';
import type { HooklineStorage } from './storage.ts';

export interface DeliverySenderProps {
  readonly storage: HooklineStorage;
  /** The delivery queue pair the sender consumes. */
  readonly deliveryQueue: HooklineQueue;
  readonly environmentValues: EnvironmentValues;
  /**
   * Cap on concurrent sender batches (Lambda ScalingConfig.MaximumConcurrency, 2-1000):
   * bounds the parallel POSTs Hookline makes, and so the load a recovering receiver sees.
   * @default EVENT_SOURCES entry for the sender
   */
  readonly maxConcurrency?: number;
  readonly functionOptions?: SharedFunctionOptions;
}

/**
 * The delivery worker: the `sender` function consuming the delivery queue in batches with
 * partial batch responses. A retry is scheduled by changing the message's visibility
 * timeout to the backoff delay and reporting it as a batch item failure, so the sender
 * needs ChangeMessageVisibility on top of what the event source grants.
 */
export class DeliverySender extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: DeliverySenderProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Sender', {
      ...props.functionOptions,
      functionKey: 'sender',
      environmentValues: props.environmentValues,
    });
    const fn = this.handler.function;
    const queue = props.deliveryQueue.queue;
    props.storage.grant(fn, TABLE_GRANTS.sender);
    queue.grantSendMessages(fn);
    queue.grant(fn, 'sqs:ChangeMessageVisibility');
    connectQueue(fn, 'sender', props.deliveryQueue, props.maxConcurrency);
    this.handler.acknowledgeNoAsyncFailureDestination(
      'Invoked only synchronously by its SQS event source mapping, never asynchronously; delivery outcomes are recorded in DynamoDB and poison messages move to the delivery redrive queue, which is alarmed.',
    );
  }
}

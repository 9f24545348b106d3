import { Construct } from 'constructs';
import { slowLaneMaxConcurrencyFor } from '../../lambdas/config/topology.ts';
import { connectQueue } from './event-source.ts';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';
import type { StaticEgress } from './static-egress.ts';

export interface DeliverySenderProps extends FunctionConstructProps {
  /** The delivery queue pair the sender consumes. */
  readonly deliveryQueue: HooklineQueue;
  /**
   * Cap on concurrent sender batches (Lambda ScalingConfig.MaximumConcurrency, 2-1000):
   * bounds the parallel POSTs Hookline makes, and so the load a recovering receiver sees.
   * @default EVENT_SOURCES entry for the sender
   */
  readonly maxConcurrency?: number;
  /** The slow lane's queue pair (domain/slow-lane.ts), the sender's second source. */
  readonly slowLane: HooklineQueue;
  /**
   * Cap on concurrent batches from the slow lane: what slow endpoints may hold at most, beside
   * (not out of) `maxConcurrency`. @default a quarter of `maxConcurrency`, at least 10 (slowLaneMaxConcurrencyFor)
   */
  readonly slowLaneMaxConcurrency?: number;
  /** Send from fixed addresses: the sender runs in this VPC's private subnets behind its NAT gateways. @default no VPC */
  readonly staticEgress?: StaticEgress;
}

/**
 * The delivery worker: the `sender` function consuming the delivery queue in batches with
 * partial batch responses. A short retry wait (up to 60 s) is scheduled by changing the
 * message's visibility timeout to the delay and reporting it as a batch item failure, so the sender
 * needs ChangeMessageVisibility on top of what the event source grants. A longer wait, or one
 * of a delivery that leaves a pack (several deliveries in one message), is sent as a delayed
 * message of its own instead, out of flight: SendMessage on the same queue. It consumes the slow
 * lane too, and sends there the deliveries of subscriptions marked slow.
 */
export class DeliverySender extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: DeliverySenderProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Sender', {
      ...functionPropsFrom('sender', props),
      sendsTo: [props.deliveryQueue, props.slowLane],
      ...(props.staticEgress ? { placement: props.staticEgress.functionPlacement } : {}),
      noAsyncFailureDestination:
        'Invoked only synchronously by its SQS event source mapping, never asynchronously; delivery outcomes are recorded in DynamoDB and poison messages move to the delivery redrive queue, which is alarmed.',
    });
    const fn = this.handler.function;
    props.deliveryQueue.queue.grant(fn, 'sqs:ChangeMessageVisibility');
    props.slowLane.queue.grant(fn, 'sqs:ChangeMessageVisibility');
    const main = connectQueue(fn, 'sender', props.deliveryQueue, props.maxConcurrency);
    // The same function drains the slow lane, its concurrency on top of the main lane's.
    const slowCap = props.slowLaneMaxConcurrency ?? slowLaneMaxConcurrencyFor(main.maxConcurrency);
    connectQueue(fn, 'sender', props.slowLane, slowCap, main.maxConcurrency);
  }
}

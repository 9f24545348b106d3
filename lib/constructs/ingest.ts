import { Construct } from 'constructs';
import { connectQueue } from './event-source.ts';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';

export interface EventIngestProps extends FunctionConstructProps {
  /** The ingest queue pair producers publish to. */
  readonly ingestQueue: HooklineQueue;
  /** The delivery queue the fan-out enqueues one message per delivery on. */
  readonly deliveryQueue: HooklineQueue;
  /** Cap on concurrent ingest batches. @default EVENT_SOURCES entry for ingest */
  readonly maxConcurrency?: number;
}

/**
 * The queue-driven ingest path: the `ingest` function consuming the ingest queue in
 * batches with partial batch responses, storing each event once and fanning it out.
 */
export class EventIngest extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: EventIngestProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Ingest', {
      ...functionPropsFrom('ingest', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination:
        'Invoked only synchronously by its SQS event source mapping, never asynchronously; messages that keep failing move to the ingest redrive queue, which is alarmed.',
    });
    connectQueue(this.handler.function, 'ingest', props.ingestQueue, props.maxConcurrency);
  }
}

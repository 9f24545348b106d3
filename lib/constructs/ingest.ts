import { Construct } from 'constructs';
import { TABLE_GRANTS } from './access.ts';
import type { EnvironmentValues } from './environment.ts';
import { connectQueue } from './event-source.ts';
import type { SharedFunctionOptions } from './function-options.ts';
import { HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';
import type { HooklineStorage } from './storage.ts';

export interface EventIngestProps {
  readonly storage: HooklineStorage;
  /** The ingest queue pair producers publish to. */
  readonly ingestQueue: HooklineQueue;
  /** The delivery queue the fan-out enqueues one message per delivery on. */
  readonly deliveryQueue: HooklineQueue;
  readonly environmentValues: EnvironmentValues;
  /** Cap on concurrent ingest batches. @default EVENT_SOURCES entry for ingest */
  readonly maxConcurrency?: number;
  readonly functionOptions?: SharedFunctionOptions;
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
      ...props.functionOptions,
      functionKey: 'ingest',
      environmentValues: props.environmentValues,
    });
    const fn = this.handler.function;
    props.storage.grant(fn, TABLE_GRANTS.ingest);
    props.deliveryQueue.queue.grantSendMessages(fn);
    connectQueue(fn, 'ingest', props.ingestQueue, props.maxConcurrency);
    this.handler.acknowledgeNoAsyncFailureDestination(
      'Invoked only synchronously by its SQS event source mapping, never asynchronously; messages that keep failing move to the ingest redrive queue, which is alarmed.',
    );
  }
}

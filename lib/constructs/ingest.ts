import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { connectQueue, connectStream } from './event-source.ts';
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
 * The `ingest` function: it consumes the ingest queue in batches with partial batch responses,
 * storing each event once, and the events table's stream (new events only), fanning every stored
 * event out, whoever published it (the API too), into its deliveries' first messages.
 */
export class EventIngest extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: EventIngestProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Ingest', {
      ...functionPropsFrom('ingest', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination:
        "Invoked only synchronously by its event source mappings, never asynchronously; ingest messages that keep failing move to the ingest redrive queue, which is alarmed, and a stream record given up is finished by the sweeper's manifest check.",
    });
    connectQueue(this.handler.function, 'ingest', props.ingestQueue, props.maxConcurrency);
    connectStream(this.handler.function, 'ingest', 'events', props.storage.tables.events);
    acknowledgeNag(this.handler.role, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'The events table\'s stream source: dynamodb:ListStreams has no resource-level permissions, so AWS requires Resource "*" (it lists stream ARNs, nothing of their data); the stream\'s reads are granted on its own ARN.',
        findings: ['Resource::*'],
      },
    ]);
  }
}

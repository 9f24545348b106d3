import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { TABLE_GRANTS } from './access.ts';
import type { EnvironmentValues } from './environment.ts';
import type { SharedFunctionOptions } from './function-options.ts';
import { HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';
import type { HooklineStorage } from './storage.ts';

export interface DeliveryReplayProps {
  readonly storage: HooklineStorage;
  readonly deliveryQueue: HooklineQueue;
  readonly environmentValues: EnvironmentValues;
  readonly functionOptions?: SharedFunctionOptions;
}

/**
 * The `replay` function operators invoke (`aws lambda invoke`, `hookline --aws`): single and
 * bulk replay, each bulk replay audited in the replays table. HooklineSchedules invokes it
 * every minute to resume bulk replays whose worker stopped; it is granted nothing else.
 */
export class DeliveryReplay extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: DeliveryReplayProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Replay', {
      ...props.functionOptions,
      functionKey: 'replay',
      environmentValues: props.environmentValues,
    });
    const fn = this.handler.function;
    props.storage.grant(fn, TABLE_GRANTS.replay);
    props.deliveryQueue.queue.grantSendMessages(fn);
    // A failed resume tick is repeated by the next one a minute later, from the replay's checkpoint.
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.handler.acknowledgeNoAsyncFailureDestination(
      'Operators invoke it synchronously and read the answer; the only asynchronous caller is the one-minute resume schedule, whose ticks carry no data and are superseded by the next one. Bulk replay progress is checkpointed in the replays table, so nothing rests on a lost tick.',
    );
  }

  /** Lets `grantee` (an operator role, a CI job) invoke replays. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.handler.function.grantInvoke(grantee);
  }
}

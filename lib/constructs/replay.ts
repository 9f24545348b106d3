import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';

export interface DeliveryReplayProps extends FunctionConstructProps {
  readonly deliveryQueue: HooklineQueue;
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
      ...functionPropsFrom('replay', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination:
        'Operators invoke it synchronously and read the answer; the only asynchronous caller is the one-minute resume schedule, whose ticks carry no data and are superseded by the next one. Bulk replay progress is checkpointed in the replays table, so nothing rests on a lost tick.',
    });
    // A failed resume tick is repeated by the next one a minute later, from the replay's checkpoint.
    this.handler.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
  }

  /** Lets `grantee` (an operator role, a CI job) invoke replays. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.handler.function.grantInvoke(grantee);
  }
}

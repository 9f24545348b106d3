import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';

export interface DeliverySweeperProps extends FunctionConstructProps {
  readonly deliveryQueue: HooklineQueue;
}

/**
 * The `sweeper` function: expires past-deadline deliveries, re-enqueues pending deliveries
 * whose message was lost and releases stuck claims. HooklineSchedules invokes it.
 */
export class DeliverySweeper extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: DeliverySweeperProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Sweeper', {
      ...functionPropsFrom('sweeper', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination:
        'Scheduled every minute and idempotent: a failed tick is repeated by the next one, so a DLQ would only collect stale ticks nobody should replay; failures show in the Lambda Errors metric.',
    });
    // A failed or stale tick is superseded by the next one a minute later; retrying it
    // would only pile concurrent sweeps onto the same rows.
    this.handler.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
  }
}

import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { TABLE_GRANTS } from './access.ts';
import type { EnvironmentValues } from './environment.ts';
import type { SharedFunctionOptions } from './function-options.ts';
import { HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';
import type { HooklineStorage } from './storage.ts';

export interface DeliverySweeperProps {
  readonly storage: HooklineStorage;
  readonly deliveryQueue: HooklineQueue;
  readonly environmentValues: EnvironmentValues;
  readonly functionOptions?: SharedFunctionOptions;
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
      ...props.functionOptions,
      functionKey: 'sweeper',
      environmentValues: props.environmentValues,
    });
    const fn = this.handler.function;
    props.storage.grant(fn, TABLE_GRANTS.sweeper);
    props.deliveryQueue.queue.grantSendMessages(fn);
    // A failed or stale tick is superseded by the next one a minute later; retrying it
    // would only pile concurrent sweeps onto the same rows.
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.handler.acknowledgeNoAsyncFailureDestination(
      'Scheduled every minute and idempotent: a failed tick is repeated by the next one, so a DLQ would only collect stale ticks nobody should replay; failures show in the Lambda Errors metric.',
    );
  }
}

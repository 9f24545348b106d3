import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';
import type { HooklineQueue } from './queues.ts';

export interface FailureNotifierProps extends FunctionConstructProps {
  /** Operational webhooks are published like any event, so the notifier enqueues their deliveries. */
  readonly deliveryQueue: HooklineQueue;
  /** The SES identity (a verified domain or address) notice emails are sent from; without one no email is sent. */
  readonly emailIdentity?: string;
}

/**
 * The `notifier` function: per-subscription failure notices (failing for 1 h and 24 h, events
 * about to expire, what was lost, recovered, auto-paused, disabled) by email through Amazon SES
 * and as operational webhooks through Hookline's own pipeline. HooklineSchedules invokes it.
 * Its role may send email from `emailIdentity` only (`ses:SendEmail` on that identity's ARN).
 */
export class FailureNotifier extends Construct {
  readonly handler: HooklineFunction;
  /** The identity's ARN the role may send from, when email is on. */
  readonly emailIdentityArn?: string;

  constructor(scope: Construct, id: string, props: FailureNotifierProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Notifier', {
      ...functionPropsFrom('notifier', props),
      sendsTo: [props.deliveryQueue],
      noAsyncFailureDestination:
        'Scheduled every 5 minutes: a tick carries no data, and a notice decided by a failed or lost tick stays decided in the notices table and is sent by the next one once its lease runs out; failures show in the Lambda Errors metric and the NoticesNotSent alarm.',
    });
    // A failed tick is superseded by the next one; retrying it would only race that one.
    this.handler.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(5) });
    if (props.emailIdentity) {
      this.emailIdentityArn = Stack.of(this).formatArn({
        service: 'ses',
        resource: 'identity',
        resourceName: props.emailIdentity,
      });
      this.handler.function.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources: [this.emailIdentityArn] }),
      );
    }
  }
}

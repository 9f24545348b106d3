import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { SCHEDULES, type FunctionKey } from '../../lambdas/config/topology.ts';
import { TopologyError } from '../errors.ts';
import { markTopology } from '../topology-metadata.ts';

export interface HooklineSchedulesProps {
  /** The deployed functions by key; every function SCHEDULES names must be here. */
  readonly functions: Readonly<Partial<Record<FunctionKey, lambda.IFunction>>>;
}

/** One EventBridge rule per SCHEDULES entry, invoking its function at the given rate. */
export class HooklineSchedules extends Construct {
  readonly rules: readonly events.Rule[];

  constructor(scope: Construct, id: string, props: HooklineSchedulesProps) {
    super(scope, id);
    this.rules = SCHEDULES.map((schedule, index) => {
      const fn = props.functions[schedule.function];
      if (!fn)
        throw new TopologyError(`SCHEDULES[${index}] names function '${schedule.function}', which is not deployed`);
      const rule = new events.Rule(this, `${schedule.function}-every-${schedule.rateMinutes}m`, {
        description: `Hookline: invoke ${schedule.function} every ${schedule.rateMinutes} minute(s)`,
        schedule: events.Schedule.rate(Duration.minutes(schedule.rateMinutes)),
        // A tick that cannot be handed to Lambda within a minute is overtaken by the next one.
        targets: [new targets.LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.minutes(1) })],
      });
      markTopology(rule, `schedule/${schedule.function}/${index}`);
      acknowledgeNag(rule, [
        {
          id: 'Serverless-EventBusDLQ',
          reason: `A periodic tick carries no data: a tick that cannot be delivered is replaced by the next one ${schedule.rateMinutes} minute(s) later, so a DLQ would only collect stale ticks nobody should replay.`,
        },
      ]);
      return rule;
    });
  }
}

import type { ScheduledEvent } from 'aws-lambda';
import type { SweepDeps } from '#app/sweep/sweep.ts';
import { type SweepOptions, sweep } from '#app/sweep/sweep.ts';
import { withObservability, type Observability } from './observability.ts';

/** EventBridge schedule → sweep once; the report lands in the logs. */
export function createSweeperHandler(deps: SweepDeps, options: SweepOptions, obs: Observability) {
  return withObservability(async (_event: ScheduledEvent) => {
    const report = await sweep(deps, options);
    if (report.expired + report.requeued + report.released + report.finishedPublishes + report.routesRepaired > 0)
      obs.logger.info('sweep changed deliveries', { ...report });
    return report;
  }, obs);
}

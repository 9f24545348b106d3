import type { ScheduledEvent } from 'aws-lambda';
import { runNotifier, type NotifierDeps } from '#app/notices/notifier.ts';
import { withObservability, type Observability } from './observability.ts';

/** EventBridge schedule → one notifier run; each notice sent, failed or taken over is one log record. */
export function createNotifierHandler(deps: NotifierDeps, obs: Observability) {
  return withObservability(async (_event: ScheduledEvent) => {
    const report = await runNotifier(deps);
    for (const n of report.notices) {
      if (n.outcome === 'sent') obs.logger.info('notice sent', { ...n });
      else obs.logger.warn('notice not sent', { ...n });
    }
    if (report.streaksStarted + report.streaksEnded > 0)
      obs.logger.info('failure streaks changed', { started: report.streaksStarted, ended: report.streaksEnded });
    return report;
  }, obs);
}

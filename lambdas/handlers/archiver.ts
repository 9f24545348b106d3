import type { Context } from 'aws-lambda';
import { restoreArchive, runArchive } from '#app/archive/archival.ts';
import { parseArchiveRun, parseRestore } from '#app/archive/archive-request.ts';
import type { ArchiveDeps } from '#app/archive/archival.ts';
import { ValidationError } from '#app/errors.ts';
import { answer, deadlineOf, isScheduledEvent, payloadObject } from './invocation.ts';
import { withObservability, type Observability } from './observability.ts';

/** The archiver stops starting batches this long before its timeout. */
const BATCH_MARGIN_MS = 60_000;

/**
 * The archiver function: daily on its schedule (archive what is past retention), or invoked by
 * an operator with `{action: 'archive', maxObjects?}` or `{action: 'restore', from, to, subscriptionId?}`.
 */
export function createArchiverHandler(deps: ArchiveDeps, obs: Observability) {
  return withObservability(async (event: unknown, context: Context) => {
    const budget = { deadlineMs: deadlineOf(context, BATCH_MARGIN_MS) };
    if (isScheduledEvent(event)) {
      const report = await runArchive(deps, { budget });
      obs.logger.info('archive run', { ...report });
      return report;
    }
    return answer(obs, async () => {
      const { action, ...rest } = payloadObject(event);
      if (action === 'archive') {
        const report = await runArchive(deps, { budget, ...parseArchiveRun(rest) });
        obs.logger.info('archive run', { ...report });
        return report;
      }
      if (action === 'restore') {
        const report = await restoreArchive(deps, parseRestore(rest));
        obs.logger.info('restore', { ...report });
        return report;
      }
      throw new ValidationError('action', 'must be archive or restore');
    });
  }, obs);
}

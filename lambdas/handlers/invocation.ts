import type { Context, ScheduledEvent } from 'aws-lambda';
import { ValidationError } from '#app/errors.ts';
import { answerFor, type ErrorAnswer } from './error-map.ts';
import type { Observability } from './observability.ts';

/** What a directly invoked function answers when it refuses a request: the API's error shape plus its status. */
export type InvocationError = Pick<ErrorAnswer, 'status' | 'error'>;

/** Whether the function was woken by its EventBridge schedule rather than invoked with a request. */
export function isScheduledEvent(event: unknown): event is ScheduledEvent {
  const e = event as Partial<ScheduledEvent> | null;
  return typeof e === 'object' && e !== null && e.source === 'aws.events' && e['detail-type'] === 'Scheduled Event';
}

/** The invocation payload as a JSON object, or a ValidationError naming `payload`. */
export function payloadObject(event: unknown): Record<string, unknown> {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new ValidationError('payload', 'must be a JSON object');
  return event as Record<string, unknown>;
}

/** Work until this long before the function's timeout, then checkpoint and answer. */
export function deadlineOf(context: Context, marginMs: number): number {
  return Date.now() + Math.max(1000, context.getRemainingTimeInMillis() - marginMs);
}

/**
 * Maps a refused request (validation, not found, conflict) to a result the caller can act on,
 * by the same table as the HTTP API (handlers/error-map.ts). Anything the table does not know
 * is rethrown, so Lambda reports it as a function error and it shows in the Errors metric.
 */
export async function answer<T>(obs: Observability, run: () => Promise<T>): Promise<T | InvocationError> {
  try {
    return await run();
  } catch (error) {
    const refused = answerFor(error);
    if (!refused) throw error;
    obs.logger.info('request refused', { code: refused.error.code, error: refused.error.message });
    return { status: refused.status, error: refused.error };
  }
}

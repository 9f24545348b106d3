import type { Context, ScheduledEvent } from 'aws-lambda';
import { ValidationError } from '#app/errors.ts';
import { errorResponse } from './api/http.ts';
import type { Observability } from './observability.ts';

/** What a directly invoked function answers when it refuses a request: the API's error shape plus its status. */
export interface InvocationError {
  readonly status: number;
  readonly error: { readonly code: string; readonly message: string };
}

export function isScheduledEvent(event: unknown): event is ScheduledEvent {
  const e = event as Partial<ScheduledEvent> | null;
  return typeof e === 'object' && e !== null && e.source === 'aws.events' && e['detail-type'] === 'Scheduled Event';
}

export function payloadObject(event: unknown): Record<string, unknown> {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new ValidationError('payload', 'must be a JSON object');
  return event as Record<string, unknown>;
}

/** Work until this long before the function's timeout, then checkpoint and answer. */
export function deadlineOf(context: Context, marginMs: number): number {
  return Date.now() + Math.max(1000, context.getRemainingTimeInMillis() - marginMs);
}

/**
 * Maps a refused request (validation, not found, conflict) to a result the caller can act on,
 * with the same codes as the HTTP API. Anything unexpected is rethrown, so Lambda reports it as
 * a function error and it shows in the Errors metric.
 */
export async function answer<T>(obs: Observability, run: () => Promise<T>): Promise<T | InvocationError> {
  try {
    return await run();
  } catch (error) {
    const { response, unexpected } = errorResponse(error);
    if (unexpected) throw error;
    obs.logger.info('request refused', { error: (error as Error).message });
    return { status: response.statusCode, ...(JSON.parse(response.body) as { error: InvocationError['error'] }) };
  }
}

import {
  createClient,
  HooklineApiError,
  HooklineUnreachableError,
  type HooklineClient,
} from '#client/hookline-client.ts';
import { bearerOf, type Credential } from './session.ts';

/** The API's base URL: the page is `<base>/dashboard`, whatever stage prefix the base has. */
export function apiBase(): string {
  return new URL('.', location.href).href.replace(/\/+$/, '');
}

export function clientFor(credential: Credential | undefined): HooklineClient {
  return createClient({ baseUrl: apiBase(), ...(credential ? { key: bearerOf(credential) } : {}) });
}

export { HooklineApiError, HooklineUnreachableError };

/** What went wrong, and what the person can do about it, in one sentence each. */
export function explain(error: unknown): {
  readonly what: string;
  readonly next: string;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
} {
  if (error instanceof HooklineApiError) {
    const what = error.message;
    switch (error.status) {
      case 401:
        return {
          what,
          next: 'Your session has ended. Open a new portal link, or sign in again with the admin key.',
          status: 401,
        };
      case 403:
        return { what, next: 'This session may not do that; ask an operator.', status: 403 };
      case 404:
        return { what, next: 'Check the id: it may belong to someone else, or have been archived.', status: 404 };
      case 409:
        return { what, next: 'Reload to see its current state, then try again.', status: 409 };
      case 429:
        return {
          what,
          next: error.retryAfterSeconds
            ? `Try again in ${error.retryAfterSeconds} s, at ${new Date(Date.now() + error.retryAfterSeconds * 1000).toLocaleTimeString()}.`
            : 'Try again in a minute.',
          status: 429,
          ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
        };
      default:
        return error.status >= 500
          ? {
              what: 'The Hookline API failed to answer.',
              next: 'Try again in a moment; if it keeps failing, check the API logs.',
              status: error.status,
            }
          : { what, next: 'Correct the field it names and try again.', status: error.status };
    }
  }
  if (error instanceof HooklineUnreachableError)
    return {
      what: `Cannot reach the Hookline API at ${apiBase()}.`,
      next: 'Check that it is running (npm start locally) and reload the page.',
    };
  return { what: error instanceof Error ? error.message : String(error), next: 'Reload the page and try again.' };
}

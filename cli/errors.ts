/**
 * Exit codes scripts can rely on (docs/operations.md "Exit codes"). HTTP statuses and the
 * replay/archiver functions' error answers map onto them in one place, `exitCodeForStatus`.
 */
export const EXIT = {
  ok: 0,
  /** Anything unexpected: a bug, a 5xx, a function error. */
  failure: 1,
  /** The command line or the request is invalid (bad option, 400). */
  usage: 2,
  notFound: 3,
  /** The resource is in a state that forbids the action (409), or another archive run holds the lock. */
  conflict: 4,
  rateLimited: 5,
  /** The key was refused (401) or is not allowed to do this (403). */
  unauthorized: 6,
  /** No runtime or AWS endpoint could be reached. */
  unreachable: 7,
  /** A bulk replay or archive run did not finish within --timeout (it carries on by itself). */
  incomplete: 8,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 400 || status === 413) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.unauthorized;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.failure;
}

/** The service refused the request; `code` and `message` are its error body. */
export class ServiceCallError extends CliError {
  override name = 'ServiceCallError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, exitCodeForStatus(status));
  }
}

export class UnreachableError extends CliError {
  override name = 'UnreachableError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, EXIT.unreachable, options);
  }
}

export class IncompleteError extends CliError {
  override name = 'IncompleteError';
  constructor(
    message: string,
    readonly result: unknown,
  ) {
    super(message, EXIT.incomplete);
  }
}

import { LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaArchiverInvoker } from '../lambda-archiver-invoker.ts';
import type { Factories } from './factory.ts';

/** The archiver function as the api invokes it: only the api's bundle carries the Lambda client. */
export const LAMBDA_FACTORIES: Factories<'archiver'> = {
  // One attempt: a retried slice could outlast the api's 29 s; a failed one fails the request, not the run (it resumes).
  archiver: (v, s) =>
    new LambdaArchiverInvoker(
      s.options.clients?.lambda ?? new LambdaClient({ maxAttempts: 1 }),
      v.ARCHIVER_FUNCTION_NAME,
    ),
};

/**
 * Errors shaped like the SDK's service exceptions: the adapters only look at `name` (e.g.
 * isConditionFailure in lambdas/adapters/dynamodb.ts) and the SDK's retry strategy at `$fault`
 * and `$metadata`, so that is what is set.
 */
export type SimErrorName =
  | 'ConditionalCheckFailedException'
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'ValidationException'
  | 'ResourceNotFoundException'
  | 'ResourceInUseException'
  | 'TransactionCanceledException'
  | 'UnknownOperationException';

export class SimDynamoError extends Error {
  readonly $fault: 'client' | 'server' = 'client';
  readonly $metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
  /** With ReturnValuesOnConditionCheckFailure ALL_OLD: the item the condition was checked against. */
  Item?: Record<string, unknown>;
  constructor(
    override readonly name: SimErrorName,
    message: string,
  ) {
    super(message);
  }
}

export const validation = (message: string) => new SimDynamoError('ValidationException', message);

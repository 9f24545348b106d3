import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The document client every store shares; tests and the local runtime pass their own base client. */
export function documentClient(client?: DynamoDBClient, config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client ?? new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/**
 * Runs a conditional write and resolves to its output, or to undefined when the condition did
 * not hold: a refused condition is an answer ("someone else got there first"), not a failure.
 */
export async function ifConditionHolds<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** For writes whose only answer is whether their condition held. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  return (await ifConditionHolds(write)) !== undefined;
}

import { InvalidCursorError } from '#ports/page.ts';

/**
 * Sends a read that starts from a caller's cursor. DynamoDB refuses a start key that does not
 * fit the table or index (a forged or foreign cursor) with a ValidationException: that is the
 * caller's bad cursor, not a server fault.
 */
export async function fromCursor<T>(startKey: unknown, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (startKey !== undefined && (error as { name?: string } | undefined)?.name === 'ValidationException')
      throw new InvalidCursorError({ cause: error });
    throw error;
  }
}

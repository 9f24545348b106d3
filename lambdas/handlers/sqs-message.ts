import type { SQSRecord } from 'aws-lambda';
import { ValidationError } from '#app/errors.ts';

/** A queue message body that must be a JSON object carrying `fields` as non-empty strings. */
export function parseQueueMessage<T>(record: SQSRecord, fields: readonly string[]): T {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new ValidationError('body', `message ${record.messageId} is not JSON`);
  }
  for (const field of fields) {
    if (typeof (body as Record<string, unknown> | null)?.[field] !== 'string') {
      throw new ValidationError(field, `message ${record.messageId} lacks a string ${field}`);
    }
  }
  return body as T;
}

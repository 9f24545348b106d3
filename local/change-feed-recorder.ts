import type { DynamoDBClient, PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { entrySeq, writeEntry, type ChangeFeed } from './change-feed.ts';

/**
 * Whether a PutItem can only create its item: its condition requires the key to be absent
 * (`attribute_not_exists(<key>)`, by name or `#alias`), alone or ANDed with other terms. An OR
 * or a NOT could let it overwrite an item, which a stream reports as MODIFY, not INSERT.
 */
export function isInsert(input: PutItemCommandInput, keyAttribute: string): boolean {
  const condition = input.ConditionExpression;
  if (!condition || /\b(OR|NOT)\b/i.test(condition)) return false;
  const names = input.ExpressionAttributeNames ?? {};
  return condition.split(/\bAND\b/i).some((term) => {
    const m = /^\s*\(?\s*attribute_not_exists\s*\(\s*([#\w]+)\s*\)\s*\)?\s*$/i.exec(term);
    return m !== null && (names[m[1]!] ?? m[1]) === keyAttribute;
  });
}

/**
 * Records every insert (a conditional PutItem, isInsert) into the watched table in the feed
 * before sending it: an insert that lands always has its entry, because the entry is durable
 * first and a failed entry write fails the put unsent. An entry whose insert never lands (a
 * refused condition, a writer killed in between) is told apart later by its stamp
 * (ChangeFeedPoller). Only PutItem is watched: an item created by BatchWriteItem,
 * TransactWriteItems or UpdateItem gets no record (the events table is written by PutItem alone).
 */
export function recordInserts(
  client: DynamoDBClient,
  feed: ChangeFeed,
  now: () => number = Date.now,
  /** Called once an insert has landed (the runtime nudges its poller, ChangeFeedPoller.nudge). */
  onInserted: () => void = () => {},
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as PutItemCommandInput;
      if (
        context.commandName === 'PutItemCommand' &&
        input.TableName === feed.watchedTable &&
        isInsert(input, feed.keyAttribute)
      ) {
        const id = input.Item?.[feed.keyAttribute];
        const stamp = input.Item?.[feed.stampAttribute];
        // Without a stamp a refused retry and the insert it repeats look alike: fail loudly, not record wrongly.
        if (!id?.S || !stamp)
          throw new Error(
            `change feed: an insert into ${feed.watchedTable} needs a string ${feed.keyAttribute} and a ${feed.stampAttribute}`,
          );
        const at = now();
        await writeEntry(client, feed, { seq: entrySeq(at, id.S), at, key: { [feed.keyAttribute]: id }, stamp });
        const landed = await next(args);
        onInserted();
        return landed;
      }
      return next(args);
    },
    // The build step: a document client's input is marshalled (AttributeValues) by then, and the
    // SDK's retries come after it, so one send() writes one entry however often it is retried.
    { step: 'build', priority: 'high', name: 'hooklineChangeFeedRecorder' },
  );
}

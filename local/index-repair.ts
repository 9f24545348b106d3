import { PutItemCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * dynalite writes an item and its index entries as separate LevelDB writes, so a SIGKILL in
 * between can leave a live delivery with no entry in the sparse `active` index, where the
 * sweeper would never find it (DynamoDB itself never loses an index entry). At start-up, before
 * any handler runs, every live delivery is written back unchanged, which puts its index entries
 * again. Returns how many were rewritten. Only the embedded dynalite needs it: it dies with this
 * process. An external endpoint (DynamoDB Local, DynamoDB) is another process that finishes each
 * request it received, item and indexes, when this one is killed; there it would only cost a scan.
 */
export async function repairActiveIndex(dynamodb: DynamoDBClient, table: string): Promise<number> {
  let start: Record<string, AttributeValue> | undefined;
  let rewritten = 0;
  do {
    const page = await dynamodb.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'attribute_exists(activeShard)',
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      await dynamodb.send(
        new PutItemCommand({
          TableName: table,
          Item: item,
          ConditionExpression: '#u = :u',
          ExpressionAttributeNames: { '#u': 'updatedAt' },
          ExpressionAttributeValues: { ':u': item.updatedAt! },
        }),
      );
      rewritten++;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return rewritten;
}

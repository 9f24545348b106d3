import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLES, type TableKey } from '#config/topology.ts';

export type TableCounts = Record<TableKey, number>;

/** Items in every topology table (Scan with Select COUNT): "nothing stored" checks and end-of-run tallies. */
export async function countTables(dynamodb: DynamoDBClient): Promise<TableCounts> {
  const counts = {} as TableCounts;
  for (const [key, def] of Object.entries(TABLES) as [TableKey, (typeof TABLES)[TableKey]][]) {
    let total = 0;
    let start: Record<string, any> | undefined;
    do {
      const out = await dynamodb.send(new ScanCommand({ TableName: def.localName, Select: 'COUNT', ExclusiveStartKey: start }));
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    counts[key] = total;
  }
  return counts;
}

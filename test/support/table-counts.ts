import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Runtime } from '#local/runtime.ts';
import { TABLES, type TableKey } from '#config/topology.ts';

export type TableCounts = Record<TableKey, number>;

/** Items in every topology table under the runtime's names (Scan with Select COUNT): "nothing stored" checks and end-of-run tallies. */
export async function countTables(runtime: Pick<Runtime, 'clients' | 'env'>): Promise<TableCounts> {
  const counts = {} as TableCounts;
  for (const [key, def] of Object.entries(TABLES) as [TableKey, (typeof TABLES)[TableKey]][]) {
    let total = 0;
    let start: Record<string, any> | undefined;
    do {
      const out = await runtime.clients.dynamodb.send(
        new ScanCommand({ TableName: runtime.env[def.envVar]!, Select: 'COUNT', ExclusiveStartKey: start }),
      );
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    counts[key] = total;
  }
  return counts;
}

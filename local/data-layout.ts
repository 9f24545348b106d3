import {
  DescribeTableCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { localResourceName, TABLES, type TableDef } from '#config/topology.ts';
import { createTableInput } from './provision.ts';

/**
 * Tables written by another Hookline layout (keys or indexes that changed since, such as the
 * sharded delivery indexes) are refused before anything reads them: an old row has none of the
 * attributes today's indexes are keyed on, so it would be silently missing from every listing.
 */
export class DataLayoutError extends Error {
  override name = 'DataLayoutError';
  constructor(
    readonly differences: readonly string[],
    /** The data folder the tables live in, or undefined for an external DynamoDB endpoint. */
    readonly dataDir?: string,
  ) {
    super(
      `the tables ${dataDir ? `in ${dataDir}` : 'on this DynamoDB endpoint'} were written by another version of Hookline, so nothing was read or changed:\n` +
        differences.map((d) => `  - ${d}`).join('\n') +
        '\n' +
        (dataDir
          ? `Start with an empty data folder (HOOKLINE_DATA_DIR=${dataDir}-new npm start), or move this one aside (mv ${dataDir} ${dataDir}-old); it stays readable by the version that wrote it.`
          : 'Use another HOOKLINE_RESOURCE_PREFIX (new tables beside these), or delete these tables; they stay readable by the version that wrote them.'),
    );
  }
}

const keys = (schema: readonly KeySchemaElement[] | undefined) =>
  (schema ?? []).map((k) => `${k.AttributeName}${k.KeyType === 'RANGE' ? ' (sort)' : ''}`).join(', ');

/** What differs between a table as it exists and as the topology declares it: its keys, and each index's keys and projection. */
export function layoutDifferences(found: TableDescription, def: TableDef, prefix = ''): string[] {
  const want = createTableInput(def, prefix);
  const name = want.TableName!;
  const out: string[] = [];
  if (keys(found.KeySchema) !== keys(want.KeySchema))
    out.push(`table ${name} is keyed on ${keys(found.KeySchema)}; this version keys it on ${keys(want.KeySchema)}`);
  const describe = (i: {
    IndexName?: string | undefined;
    KeySchema?: KeySchemaElement[] | undefined;
    Projection?: { ProjectionType?: string | undefined } | undefined;
  }) => `${i.IndexName} on ${keys(i.KeySchema)}, ${i.Projection?.ProjectionType ?? 'ALL'}`;
  const had = new Set((found.GlobalSecondaryIndexes ?? []).map(describe));
  const expected = new Set((want.GlobalSecondaryIndexes ?? []).map(describe));
  for (const i of had) if (!expected.has(i)) out.push(`table ${name} has index ${i}, which this version does not have`);
  for (const i of expected) if (!had.has(i)) out.push(`table ${name} lacks index ${i}`);
  return out;
}

/**
 * Throws DataLayoutError when any existing table of the topology differs from its declaration;
 * missing tables are fine (provision creates them). `dataDir`: where the embedded emulator keeps
 * them, for the message; absent for an external endpoint.
 */
export async function checkDataLayout(db: DynamoDBClient, prefix = '', dataDir?: string): Promise<void> {
  const differences: string[] = [];
  for (const def of Object.values(TABLES) as TableDef[]) {
    try {
      const { Table } = await db.send(new DescribeTableCommand({ TableName: localResourceName(def, prefix) }));
      if (Table) differences.push(...layoutDifferences(Table, def, prefix));
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
  }
  if (differences.length > 0) throw new DataLayoutError(differences, dataDir);
}

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { IndexDef, TableDef } from '#config/topology.ts';
import { writeUnits } from './item-size.ts';

type Item = Readonly<Record<string, AttributeValue>>;

const indexKeys = (index: IndexDef) => [index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])];

/** Whether `item` has an entry in `index` (a sparse index holds only items carrying its keys). */
export const inIndex = (index: IndexDef, item: Item | undefined): item is Item =>
  !!item && indexKeys(index).every((k) => item[k] !== undefined);

/** The entry `index` holds for `item`: the whole item, or its index and table keys when keys-only. */
export function indexEntry(table: TableDef, index: IndexDef, item: Item): Item {
  const tableKeys = [table.partitionKey.name, ...(table.sortKey ? [table.sortKey.name] : [])];
  return index.projection === 'ALL'
    ? item
    : Object.fromEntries([...indexKeys(index), ...tableKeys].filter((k) => item[k]).map((k) => [k, item[k]!]));
}

/**
 * Write units DynamoDB charges to a table's global secondary indexes for one item write, by
 * the documented rules: an item entering or leaving an index costs one index write, a changed
 * index key costs two (delete + put), a changed projected attribute costs one, nothing else costs.
 * The emulator does not report index capacity, so the benchmark computes it from the items before
 * and after each write.
 */
export function gsiWriteUnits(
  table: TableDef,
  before: Item | undefined,
  after: Item | undefined,
): Record<string, number> {
  const units: Record<string, number> = {};
  for (const index of table.indexes) {
    const keys = indexKeys(index);
    const entry = (item: Item) => indexEntry(table, index, item);
    const same = (a: Item, b: Item, names: readonly string[]) =>
      names.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
    let n = 0;
    if (inIndex(index, before) && inIndex(index, after)) {
      if (!same(before, after, keys)) n = writeUnits(entry(before)) + writeUnits(entry(after));
      else {
        const projected = Object.keys({ ...entry(before), ...entry(after) });
        if (!same(entry(before), entry(after), projected))
          n = Math.max(writeUnits(entry(before)), writeUnits(entry(after)));
      }
    } else if (inIndex(index, after)) n = writeUnits(entry(after));
    else if (inIndex(index, before)) n = writeUnits(entry(before));
    if (n > 0) units[index.indexName] = n;
  }
  return units;
}

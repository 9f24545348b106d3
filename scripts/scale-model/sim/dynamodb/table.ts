/**
 * One simulated table: items in a Map per partition key value, each partition's entries sorted
 * by sort key (binary-search insert, DynamoDB's order: numbers numerically, strings and binary
 * by bytes), and every GSI maintained incrementally on each write. A GSI keeps only the items
 * that carry its key attributes (sparse indexes: the sweeper's `active` index relies on it) and
 * only the projected attributes.
 */
import type { IndexDef, KeyDef, TableDef } from '#config/topology.ts';
import { validation } from './errors.ts';
import { itemSize } from './item-size.ts';
import { KeyMeters, Meter } from './capacity.ts';
import type { TableStream } from './stream.ts';
import { compareScalars, compareStrings, deepEqual, type Item, keyString, typeOf } from './values.ts';

interface Entry {
  /** The sort key value (undefined without a sort key). */
  readonly sort: unknown;
  /** Tie-break inside a GSI partition: the table key of the item ('' in the table itself). */
  readonly tie: string;
  readonly item: Item;
  readonly size: number;
}

function compareEntry(a: { sort: unknown; tie: string }, b: { sort: unknown; tie: string }): number {
  if (a.sort !== undefined || b.sort !== undefined) {
    const c = compareScalars(a.sort, b.sort) ?? 0;
    if (c !== 0) return c;
  }
  return compareStrings(a.tie, b.tie);
}

/** Capacity and call counters of a table or one of its indexes. */
export class UsageStats {
  readonly calls = new Map<string, number>();
  readonly read = new Meter();
  readonly write = new Meter();
  readonly partitionRead = new KeyMeters();
  readonly partitionWrite = new KeyMeters();
  throttledRequests = 0;
  throttleEvents = 0;
  readonly keyThrottles = new Map<string, number>();
  /** Units used and tries refused, by `<function> <command>`: which call spends the capacity. */
  readonly byCaller = new Map<string, CapacityUse>();
  /** Units used and tries refused, by minute of simulated time. */
  readonly byMinute = new Map<number, CapacityUse>();
  note(caller: string, nowMs: number, use: Partial<CapacityUse>): void {
    addUse(this.byCaller, caller, use);
    addUse(this.byMinute, Math.floor(nowMs / 60_000), use);
  }
}

export interface CapacityUse {
  rcu: number;
  wcu: number;
  refused: number;
}

function addUse<K>(map: Map<K, CapacityUse>, key: K, use: Partial<CapacityUse>): void {
  let row = map.get(key);
  if (!row) map.set(key, (row = { rcu: 0, wcu: 0, refused: 0 }));
  row.rcu += use.rcu ?? 0;
  row.wcu += use.wcu ?? 0;
  row.refused += use.refused ?? 0;
}

/** Sorted partitions: the table's own storage, and each GSI's. */
export class SortedStore {
  readonly partitions = new Map<string, Entry[]>();
  private order: string[] | undefined;

  find(
    pk: string,
    probe: { sort: unknown; tie: string },
  ): { entries: Entry[] | undefined; at: number; found: boolean } {
    const entries = this.partitions.get(pk);
    if (!entries) return { entries, at: 0, found: false };
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareEntry(entries[mid] as Entry, probe) < 0) lo = mid + 1;
      else hi = mid;
    }
    const hit = entries[lo];
    return { entries, at: lo, found: hit !== undefined && compareEntry(hit, probe) === 0 };
  }

  put(pk: string, entry: Entry): void {
    const { entries, at, found } = this.find(pk, entry);
    if (!entries) {
      this.partitions.set(pk, [entry]);
      this.order = undefined;
    } else if (found) entries[at] = entry;
    else entries.splice(at, 0, entry);
  }

  delete(pk: string, probe: { sort: unknown; tie: string }): void {
    const { entries, at, found } = this.find(pk, probe);
    if (!entries || !found) return;
    entries.splice(at, 1);
    if (entries.length === 0) {
      this.partitions.delete(pk);
      this.order = undefined;
    }
  }

  /** Partition keys in a stable order (their tagged strings), for Scan paging. */
  scanOrder(): string[] {
    if (!this.order) this.order = [...this.partitions.keys()].sort(compareStrings);
    return this.order;
  }
}

export interface KeySchema {
  readonly partitionKey: KeyDef;
  readonly sortKey?: KeyDef | undefined;
}

export class SimIndex {
  readonly store = new SortedStore();
  readonly stats = new UsageStats();
  constructor(
    readonly def: IndexDef,
    private readonly table: SimTable,
  ) {}

  /** The index's copy of an item (its projection), or undefined when the item lacks the index key. */
  projectionOf(item: Item | undefined): Item | undefined {
    if (!item) return undefined;
    const pk = item[this.def.partitionKey.name];
    if (pk === undefined) return undefined;
    if (this.def.sortKey && item[this.def.sortKey.name] === undefined) return undefined;
    if (this.def.projection === 'ALL') return item;
    const out: Item = {};
    const keep = [
      this.table.def.partitionKey.name,
      this.table.def.sortKey?.name,
      this.def.partitionKey.name,
      this.def.sortKey?.name,
      ...(this.def.projection === 'INCLUDE' ? (this.def.nonKeyAttributes ?? []) : []),
    ];
    for (const k of keep) if (k !== undefined && item[k] !== undefined) out[k] = item[k];
    return out;
  }

  entryOf(projected: Item): { pk: string; entry: Entry } {
    return {
      pk: keyString(projected[this.def.partitionKey.name]),
      entry: {
        sort: this.def.sortKey ? projected[this.def.sortKey.name] : undefined,
        tie: this.table.primaryKeyString(projected),
        item: projected,
        size: itemSize(projected),
      },
    };
  }
}

/** What one write does to one GSI: which index partitions it writes and how many bytes each. */
export interface IndexWrite {
  readonly index: SimIndex;
  readonly writes: { readonly pk: string; readonly bytes: number }[];
}

export class SimTable {
  readonly store = new SortedStore();
  readonly stats = new UsageStats();
  readonly indexes = new Map<string, SimIndex>();
  readonly keyNames: readonly string[];
  itemCount = 0;
  createdAt = 0;
  /** Set by SimDynamoDB.enableStream: every stored change passes through write(), so it is told there. */
  stream: TableStream | undefined;

  constructor(
    readonly def: TableDef,
    readonly name: string,
  ) {
    for (const i of def.indexes) this.indexes.set(i.indexName, new SimIndex(i, this));
    this.keyNames = [def.partitionKey.name, ...(def.sortKey ? [def.sortKey.name] : [])];
  }

  index(name: string): SimIndex {
    const i = this.indexes.get(name);
    if (!i) throw validation(`The table does not have the specified index: ${name}`);
    return i;
  }

  primaryKeyString(item: Item): string {
    const pk = keyString(item[this.def.partitionKey.name]);
    return this.def.sortKey ? `${pk}\u0000${keyString(item[this.def.sortKey.name])}` : pk;
  }

  /** Checks a Key argument: exactly the key attributes, of their declared types. */
  checkKey(key: Item | undefined): Item {
    if (!key) throw validation('The provided key element does not match the schema');
    const names = Object.keys(key).filter((k) => key[k] !== undefined);
    if (names.length !== this.keyNames.length || !this.keyNames.every((k) => names.includes(k)))
      throw validation('The provided key element does not match the schema');
    checkKeyAttribute(key, this.def.partitionKey, 'key');
    if (this.def.sortKey) checkKeyAttribute(key, this.def.sortKey, 'key');
    return key;
  }

  /** Checks an item to be stored: its key attributes present and typed, the index keys typed. */
  checkItem(item: Item): void {
    for (const k of [this.def.partitionKey, this.def.sortKey]) {
      if (!k) continue;
      if (item[k.name] === undefined)
        throw validation(`One or more parameter values were invalid: Missing the key ${k.name} in the item`);
      checkKeyAttribute(item, k, 'key');
    }
    for (const i of this.indexes.values())
      for (const k of [i.def.partitionKey, i.def.sortKey])
        if (k && item[k.name] !== undefined) checkKeyAttribute(item, k, `index key of ${i.def.indexName}`);
  }

  partitionOf(key: Item): string {
    return keyString(key[this.def.partitionKey.name]);
  }

  get(key: Item): Entry | undefined {
    const probe = { sort: this.def.sortKey ? key[this.def.sortKey.name] : undefined, tie: '' };
    const { entries, at, found } = this.store.find(this.partitionOf(key), probe);
    return found ? entries?.[at] : undefined;
  }

  /** The index partitions a write from `old` to `next` touches, and their bytes (capacity is per index write). */
  indexWrites(old: Item | undefined, next: Item | undefined): IndexWrite[] {
    const out: IndexWrite[] = [];
    for (const index of this.indexes.values()) {
      const before = index.projectionOf(old);
      const after = index.projectionOf(next);
      if (!before && !after) continue;
      const writes: { pk: string; bytes: number }[] = [];
      if (before && after) {
        const samePk = deepEqual(before[index.def.partitionKey.name], after[index.def.partitionKey.name]);
        const sameSk = !index.def.sortKey || deepEqual(before[index.def.sortKey.name], after[index.def.sortKey.name]);
        if (samePk && sameSk) {
          // Same index key: one write, and none when no projected attribute changed.
          if (!deepEqual(before, after))
            writes.push({
              pk: keyString(after[index.def.partitionKey.name]),
              bytes: Math.max(itemSize(before), itemSize(after)),
            });
        } else {
          // A key change is a delete of the old index entry and a put of the new one.
          writes.push({ pk: keyString(before[index.def.partitionKey.name]), bytes: itemSize(before) });
          writes.push({ pk: keyString(after[index.def.partitionKey.name]), bytes: itemSize(after) });
        }
      } else {
        const one = (before ?? after) as Item;
        writes.push({ pk: keyString(one[index.def.partitionKey.name]), bytes: itemSize(one) });
      }
      if (writes.length) out.push({ index, writes });
    }
    return out;
  }

  /** Stores `next` in place of `old` (either may be absent), in the table and every index. */
  write(key: Item, old: Item | undefined, next: Item | undefined): void {
    const pk = this.partitionOf(key);
    const sort = this.def.sortKey ? key[this.def.sortKey.name] : undefined;
    if (next) {
      this.store.put(pk, { sort, tie: '', item: next, size: itemSize(next) });
      if (!old) this.itemCount++;
    } else if (old) {
      this.store.delete(pk, { sort, tie: '' });
      this.itemCount--;
    }
    for (const index of this.indexes.values()) {
      const before = index.projectionOf(old);
      const after = index.projectionOf(next);
      if (before) {
        const { pk: ipk, entry } = index.entryOf(before);
        index.store.delete(ipk, entry);
      }
      if (after) {
        const { pk: ipk, entry } = index.entryOf(after);
        index.store.put(ipk, entry);
      }
    }
    this.stream?.append(key, old, next);
  }
}

function checkKeyAttribute(item: Item, k: KeyDef, what: string): void {
  const v = item[k.name];
  const t = typeOf(v);
  if (t !== k.type && !(k.type === ('B' as string) && t === 'B'))
    throw validation(
      `One or more parameter values were invalid: Type mismatch for ${what}; key: ${k.name} expected: ${k.type} actual: ${t ?? 'NULL'}`,
    );
  if (t === 'S' && (v as string).length === 0)
    throw validation(
      `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: ${k.name}`,
    );
}

export type { Entry };

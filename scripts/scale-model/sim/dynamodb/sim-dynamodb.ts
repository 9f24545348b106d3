/**
 * A simulated DynamoDB for the scale model: a real DynamoDBClient whose every call is answered
 * in memory, with DynamoDB's semantics (conditions, updates, queries on sorted keys, sparse GSIs)
 * and its metering and throughput limits, on simulated time. The real adapters run on it
 * unchanged: documentClient(sim.client()) is all they need.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { SMITHY_CONTEXT_KEY } from '@smithy/types';
import type { IndexDef, KeyDef, TableDef } from '#config/topology.ts';
import type { SimTime } from '../time.ts';
import { DEFAULT_LIMITS, type DynamoLimits, Meter, readUnits, writeUnits } from './capacity.ts';
import { SimDynamoError, validation } from './errors.ts';
import { applyUpdate, evaluate, type Placeholders, project } from './expression-eval.ts';
import { type Condition, parseCondition, parseProjection, parseUpdate, type PathNode } from './expression-parser.ts';
import { itemSize, MAX_ITEM_BYTES } from './item-size.ts';
import { callerName } from '../caller.ts';
import { type StreamOptions, TableStream } from './stream.ts';
import { type CapacityUse, type Entry, type SimIndex, SimTable, type UsageStats } from './table.ts';
import { compareScalars, compareStrings, copyItem, type Item, keyString } from './values.ts';

/**
 * The SDK v3 standard retry strategy (@smithy/core/dist-cjs/submodules/retry, `Retry` and
 * `StandardRetryStrategy`): 3 attempts; a throttling error backs off floor(random x min(1000 ms x
 * 2^retry, 20 s)); each retry takes 5 tokens (throttling cost) from a 500-token bucket per client,
 * and a success gives back its retry's cost (or 1).
 */
const SDK_RETRY = {
  maxAttempts: 3,
  throttlingBaseMs: 1_000,
  maxDelayMs: 20_000,
  bucket: 500,
  throttlingCost: 5,
  successRefund: 1,
};

/**
 * DynamoDB claims "single-digit millisecond performance at any scale" (https://aws.amazon.com/dynamodb/):
 * a few ms for a single-item call, a little more for a query or a batch.
 */
export function defaultLatencyMs(command: string): number {
  if (command === 'GetItem' || command === 'PutItem' || command === 'UpdateItem' || command === 'DeleteItem') return 4;
  if (command === 'Query' || command === 'Scan') return 6;
  if (command.startsWith('Batch') || command.startsWith('Transact')) return 8;
  return 0;
}

export interface SimDynamoOptions {
  readonly time: SimTime;
  readonly limits?: Partial<DynamoLimits>;
  readonly latencyMs?: (command: string) => number;
  /** Jitter for the SDK retry backoff; seed it for reproducible runs. */
  readonly random?: () => number;
}

/** A request refused for capacity: which limit, on which table or index, for which key. */
class Throttled {
  constructor(
    readonly limit: 'partition' | 'table' | 'account',
    readonly stats: UsageStats,
    readonly key: string,
  ) {}
}

interface Charge {
  readonly stats: UsageStats;
  readonly key: string;
  readonly units: number;
}

export interface UsageReport {
  readonly calls: Record<string, number>;
  readonly rcu: number;
  readonly wcu: number;
  readonly throttledRequests: number;
  readonly throttleEvents: number;
  readonly peakRcuPerSecond: number;
  readonly peakWcuPerSecond: number;
  readonly topThrottledPartitions: readonly { readonly key: string; readonly throttles: number }[];
  /** By `<function> <command>` and by minute of simulated time: where the capacity went, and when. */
  readonly byCaller: Record<string, CapacityUse>;
  readonly byMinute: Record<string, CapacityUse>;
}
export interface TableReport extends UsageReport {
  readonly table: string;
  readonly items: number;
  readonly indexes: Record<string, UsageReport>;
}
export interface DynamoReport {
  /** Keyed by table name. */
  readonly tables: Record<string, TableReport>;
  readonly account: {
    readonly rcu: number;
    readonly wcu: number;
    readonly peakRcuPerSecond: number;
    readonly peakWcuPerSecond: number;
  };
}

type Output = Record<string, unknown>;
type Handler = (input: Output) => Output;

const MAX_PAGE_BYTES = 1024 * 1024;

export class SimDynamoDB {
  private readonly tables = new Map<string, SimTable>();
  readonly limits: DynamoLimits;
  private readonly time: SimTime;
  private readonly latencyMs: (command: string) => number;
  private readonly random: () => number;
  private readonly accountRead = new Meter();
  private readonly accountWrite = new Meter();
  private readonly handlers: Record<string, Handler>;
  /** The `<function> <command>` of the call being answered (handlers run synchronously), for the usage by caller. */
  private caller = 'setup';

  constructor(options: SimDynamoOptions) {
    this.time = options.time;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.latencyMs = options.latencyMs ?? defaultLatencyMs;
    this.random = options.random ?? Math.random;
    this.handlers = {
      PutItem: (i) => this.putItem(i),
      GetItem: (i) => this.getItem(i),
      UpdateItem: (i) => this.updateItem(i),
      DeleteItem: (i) => this.deleteItem(i),
      Query: (i) => this.query(i),
      Scan: (i) => this.scan(i),
      BatchGetItem: (i) => this.batchGet(i),
      BatchWriteItem: (i) => this.batchWrite(i),
      CreateTable: (i) => this.createTableCall(i),
      DeleteTable: (i) => this.deleteTableCall(i),
      DescribeTable: (i) => ({ Table: this.describe(this.table(i.TableName)) }),
      ListTables: () => ({ TableNames: [...this.tables.keys()].sort() }),
      UpdateTimeToLive: (i) => (this.table(i.TableName), { TimeToLiveSpecification: i.TimeToLiveSpecification }),
      DescribeTimeToLive: (i) => {
        const t = this.table(i.TableName);
        return {
          TimeToLiveDescription: t.def.ttlAttribute
            ? { TimeToLiveStatus: 'ENABLED', AttributeName: t.def.ttlAttribute }
            : { TimeToLiveStatus: 'DISABLED' },
        };
      },
    };
  }

  createTable(def: TableDef, name: string): void {
    if (this.tables.has(name)) throw new SimDynamoError('ResourceInUseException', `Table already exists: ${name}`);
    const t = new SimTable(def, name);
    t.createdAt = this.time.now();
    this.tables.set(name, t);
  }

  /**
   * Turns on the table's stream (a table has at most one). It sees the writes made from now on,
   * and goes when the table does. The sim has no TransactWriteItems and performs no TTL deletes,
   * so every change reaches it through the four write calls.
   */
  enableStream(tableName: string, options: StreamOptions): TableStream {
    const t = this.table(tableName);
    if (t.stream) throw new SimDynamoError('ValidationException', `Table already has an enabled stream: ${tableName}`);
    t.stream = new TableStream(t.name, t.keyNames, this.time, options);
    return t.stream;
  }

  stream(tableName: string): TableStream {
    const s = this.table(tableName).stream;
    if (!s) throw new SimDynamoError('ValidationException', `Table has no stream: ${tableName}`);
    return s;
  }

  /**
   * A real DynamoDBClient answered by this simulator. The middleware sits first in the initialize
   * step and never calls on: nothing is serialized, signed or sent. A lib-dynamodb command still
   * carries its native input there (it marshals just before the serializer and unmarshals just
   * before the deserializer, both below this point), so native in, native out; a raw
   * DynamoDBClient command (AttributeValues) shares the command name, so the two are told apart by
   * whether the command's stack carries lib-dynamodb's DocumentMarshall (removing it is harmless:
   * the handler has already been resolved, and lib-dynamodb re-adds it on every send).
   */
  client(): DynamoDBClient {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'sim', secretAccessKey: 'sim' },
    });
    const retry = { capacity: SDK_RETRY.bucket };
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const command = String(context.commandName).replace(/Command$/, '');
        const instance = (
          context as unknown as Record<
            string,
            { commandInstance?: { middlewareStack?: { remove(n: string): boolean } } }
          >
        )[SMITHY_CONTEXT_KEY]?.commandInstance;
        const native = instance?.middlewareStack?.remove('DocumentMarshall') === true;
        const input = args.input as Output;
        const output = await this.call(command, native ? input : fromWire(command, input), retry, native);
        return {
          output: { ...(native ? output : toWire(command, output)), $metadata: { httpStatusCode: 200 } },
          response: {},
        } as never;
      },
      { step: 'initialize', priority: 'high', name: 'simDynamoDB' },
    );
    return client;
  }

  /** One SDK call: answered after the simulated latency, throttled tries retried as the SDK does. */
  private async call(command: string, input: Output, retry: { capacity: number }, native: boolean): Promise<Output> {
    const handler = this.handlers[command];
    if (!handler) throw new SimDynamoError('UnknownOperationException', `The simulator does not implement ${command}`);
    this.countCall(command, input);
    const caller = `${callerName()} ${command}`;
    const latency = this.latencyMs(command);
    let retryCost: number | undefined;
    for (let attempt = 1; ; attempt++) {
      let output: Output;
      try {
        this.caller = caller;
        output = handler(input);
      } catch (error) {
        if (latency > 0) await this.time.sleep(latency);
        if (!(error instanceof Throttled)) {
          if (!native && error instanceof SimDynamoError && error.Item) error.Item = marshall(error.Item);
          throw error;
        }
        error.stats.throttleEvents++;
        error.stats.note(caller, this.time.now(), { refused: 1 });
        if (error.limit === 'partition')
          error.stats.keyThrottles.set(error.key, (error.stats.keyThrottles.get(error.key) ?? 0) + 1);
        if (attempt < SDK_RETRY.maxAttempts && retry.capacity >= SDK_RETRY.throttlingCost) {
          retry.capacity -= SDK_RETRY.throttlingCost;
          retryCost = SDK_RETRY.throttlingCost;
          const cap = Math.min(SDK_RETRY.throttlingBaseMs * 2 ** (attempt - 1), SDK_RETRY.maxDelayMs);
          await this.time.sleep(Math.floor(this.random() * cap));
          continue;
        }
        error.stats.throttledRequests++;
        throw throttleError(error, attempt);
      }
      retry.capacity = Math.min(SDK_RETRY.bucket, retry.capacity + (retryCost ?? SDK_RETRY.successRefund));
      if (latency > 0) await this.time.sleep(latency);
      return output;
    }
  }

  private countCall(command: string, input: Output): void {
    const names =
      command.startsWith('Batch') && input.RequestItems
        ? Object.keys(input.RequestItems as object)
        : [input.TableName as string];
    for (const n of names) {
      const t = this.tables.get(n);
      if (!t) continue;
      const stats = typeof input.IndexName === 'string' ? (t.indexes.get(input.IndexName)?.stats ?? t.stats) : t.stats;
      stats.calls.set(command, (stats.calls.get(command) ?? 0) + 1);
    }
  }

  /** Consumes the charges if every limit they touch has room in this second, else throws Throttled. */
  private admit(charges: readonly Charge[], write: boolean): void {
    const now = this.time.now();
    const l = this.limits;
    const perKey = new Map<UsageStats, Map<string, number>>();
    let all = 0;
    for (const c of charges) {
      let keys = perKey.get(c.stats);
      if (!keys) perKey.set(c.stats, (keys = new Map()));
      keys.set(c.key, (keys.get(c.key) ?? 0) + c.units);
      all += c.units;
    }
    for (const [stats, keys] of perKey) {
      let sum = 0;
      for (const [key, units] of keys) {
        sum += units;
        const meter = (write ? stats.partitionWrite : stats.partitionRead).get(key, now);
        if (!meter.fits(now, units, write ? l.partitionWcu : l.partitionRcu))
          throw new Throttled('partition', stats, key);
      }
      if (!(write ? stats.write : stats.read).fits(now, sum, write ? l.tableWcu : l.tableRcu))
        throw new Throttled('table', stats, '');
    }
    const first = charges[0];
    if (first && !(write ? this.accountWrite : this.accountRead).fits(now, all, write ? l.accountWcu : l.accountRcu))
      throw new Throttled('account', first.stats, '');
    for (const [stats, keys] of perKey) {
      for (const [key, units] of keys) {
        (write ? stats.partitionWrite : stats.partitionRead).get(key, now).consume(now, units);
        (write ? stats.write : stats.read).consume(now, units);
        stats.note(this.caller, now, write ? { wcu: units } : { rcu: units });
      }
    }
    (write ? this.accountWrite : this.accountRead).consume(now, all);
  }

  private table(name: unknown): SimTable {
    const t = typeof name === 'string' ? this.tables.get(name) : undefined;
    if (!t)
      throw new SimDynamoError(
        'ResourceNotFoundException',
        `Requested resource not found: Table: ${String(name)} not found`,
      );
    return t;
  }

  // ---- writes ----

  /** The write charges of replacing `old` by `next`: the table's partition, and each GSI partition written. */
  private writeCharges(
    t: SimTable,
    key: Item,
    old: Item | undefined,
    next: Item | undefined,
    withIndexes: boolean,
  ): Charge[] {
    const charges: Charge[] = [
      { stats: t.stats, key: t.partitionOf(key), units: writeUnits(Math.max(itemSize(old), itemSize(next))) },
    ];
    if (withIndexes)
      for (const w of t.indexWrites(old, next))
        for (const x of w.writes) charges.push({ stats: w.index.stats, key: x.pk, units: writeUnits(x.bytes) });
    return charges;
  }

  private conditionHolds(input: Output, item: Item | undefined, ph: Placeholders): boolean {
    const src = input.ConditionExpression;
    if (typeof src !== 'string') return true;
    return evaluate(parseCondition(src).ast, item, ph);
  }

  private conditionFailed(input: Output, old: Item | undefined): SimDynamoError {
    const e = new SimDynamoError('ConditionalCheckFailedException', 'The conditional request failed');
    if (input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && old) e.Item = copyItem(old);
    return e;
  }

  private putItem(input: Output): Output {
    const t = this.table(input.TableName);
    const ph = placeholders(input, [input.ConditionExpression]);
    checkReturnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
    const item = copyItem((input.Item ?? {}) as Item);
    t.checkItem(item);
    checkSize(item);
    const old = t.get(item)?.item;
    const holds = this.conditionHolds(input, old, ph);
    this.admit(this.writeCharges(t, item, old, holds ? item : old, holds), true);
    if (!holds) throw this.conditionFailed(input, old);
    t.write(item, old, item);
    return input.ReturnValues === 'ALL_OLD' && old ? { Attributes: copyItem(old) } : {};
  }

  private updateItem(input: Output): Output {
    const t = this.table(input.TableName);
    const ph = placeholders(input, [input.ConditionExpression], input.UpdateExpression);
    checkReturnValues(input.ReturnValues, ['NONE', 'ALL_OLD', 'ALL_NEW', 'UPDATED_OLD', 'UPDATED_NEW']);
    const key = copyItem(t.checkKey(input.Key as Item));
    const old = t.get(key)?.item;
    let next: Item = old ? copyItem(old) : key;
    let touched = new Set<string>();
    if (typeof input.UpdateExpression === 'string') {
      ({ item: next, touched } = applyUpdate(old, next, parseUpdate(input.UpdateExpression), ph, t.keyNames));
    }
    t.checkItem(next);
    checkSize(next);
    const holds = this.conditionHolds(input, old, ph);
    this.admit(this.writeCharges(t, key, old, holds ? next : old, holds), true);
    if (!holds) throw this.conditionFailed(input, old);
    t.write(key, old, next);
    const pick = (item: Item | undefined) => {
      if (!item) return undefined;
      const out: Item = {};
      for (const k of touched) if (item[k] !== undefined) out[k] = item[k];
      return Object.keys(out).length ? copyItem(out) : undefined;
    };
    let attributes: Item | undefined;
    switch (input.ReturnValues) {
      case 'ALL_NEW':
        attributes = copyItem(next);
        break;
      case 'ALL_OLD':
        attributes = old && copyItem(old);
        break;
      case 'UPDATED_NEW':
        attributes = pick(next);
        break;
      case 'UPDATED_OLD':
        attributes = pick(old);
        break;
    }
    return attributes ? { Attributes: attributes } : {};
  }

  private deleteItem(input: Output): Output {
    const t = this.table(input.TableName);
    const ph = placeholders(input, [input.ConditionExpression]);
    checkReturnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
    const key = t.checkKey(input.Key as Item);
    const old = t.get(key)?.item;
    const holds = this.conditionHolds(input, old, ph);
    this.admit(this.writeCharges(t, key, old, holds ? undefined : old, holds), true);
    if (!holds) throw this.conditionFailed(input, old);
    if (old) t.write(key, old, undefined);
    return input.ReturnValues === 'ALL_OLD' && old ? { Attributes: copyItem(old) } : {};
  }

  private batchWrite(input: Output): Output {
    const requests = (input.RequestItems ?? {}) as Record<
      string,
      { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
    >;
    const total = Object.values(requests).reduce((n, r) => n + r.length, 0);
    if (total === 0 || total > 25) throw validation('Too many items requested for the BatchWriteItem call');
    const plans: { t: SimTable; req: (typeof requests)[string][number]; key: Item; next: Item | undefined }[] = [];
    for (const [name, list] of Object.entries(requests)) {
      const t = this.table(name);
      const seen = new Set<string>();
      for (const req of list) {
        let key: Item;
        let next: Item | undefined;
        if (req.PutRequest) {
          next = copyItem(req.PutRequest.Item);
          t.checkItem(next);
          checkSize(next);
          key = next;
        } else if (req.DeleteRequest) key = copyItem(t.checkKey(req.DeleteRequest.Key));
        else throw validation('A BatchWriteItem request must be a PutRequest or a DeleteRequest');
        const id = t.primaryKeyString(key);
        if (seen.has(id)) throw validation('Provided list of item keys contains duplicates');
        seen.add(id);
        plans.push({ t, req, key, next });
      }
    }
    const unprocessed: Record<string, unknown[]> = {};
    let throttled: Throttled | undefined;
    for (const p of plans) {
      const old = p.t.get(p.key)?.item;
      try {
        this.admit(this.writeCharges(p.t, p.key, old, p.next, true), true);
      } catch (e) {
        if (!(e instanceof Throttled)) throw e;
        throttled = e;
        (unprocessed[p.t.name] ??= []).push(p.req);
        continue;
      }
      p.t.write(p.key, old, p.next);
    }
    // None written: DynamoDB refuses the whole call (and the SDK retries it).
    if (throttled && Object.values(unprocessed).reduce((n, r) => n + r.length, 0) === plans.length) throw throttled;
    return { UnprocessedItems: unprocessed };
  }

  // ---- reads ----

  private getItem(input: Output): Output {
    const t = this.table(input.TableName);
    const ph = placeholders(input, [], undefined, input.ProjectionExpression);
    const key = t.checkKey(input.Key as Item);
    const entry = t.get(key);
    const consistent = input.ConsistentRead === true;
    this.admit([{ stats: t.stats, key: t.partitionOf(key), units: readUnits(entry?.size ?? 0, consistent) }], false);
    return entry ? { Item: shape(entry.item, input.ProjectionExpression, ph) } : {};
  }

  private batchGet(input: Output): Output {
    const requests = (input.RequestItems ?? {}) as Record<
      string,
      {
        Keys: Item[];
        ConsistentRead?: boolean;
        ProjectionExpression?: string;
        ExpressionAttributeNames?: Record<string, string>;
      }
    >;
    const total = Object.values(requests).reduce((n, r) => n + (r.Keys?.length ?? 0), 0);
    if (total === 0 || total > 100) throw validation('Too many items requested for the BatchGetItem call');
    const responses: Record<string, Item[]> = {};
    const unprocessed: Record<string, { Keys: Item[] }> = {};
    let throttled: Throttled | undefined;
    let unprocessedCount = 0;
    for (const [name, req] of Object.entries(requests)) {
      const t = this.table(name);
      const ph = placeholders(req as Output, [], undefined, req.ProjectionExpression);
      const seen = new Set<string>();
      responses[name] = [];
      for (const raw of req.Keys) {
        const key = t.checkKey(raw);
        const id = t.primaryKeyString(key);
        if (seen.has(id)) throw validation('Provided list of item keys contains duplicates');
        seen.add(id);
        const entry = t.get(key);
        try {
          this.admit(
            [
              {
                stats: t.stats,
                key: t.partitionOf(key),
                units: readUnits(entry?.size ?? 0, req.ConsistentRead === true),
              },
            ],
            false,
          );
        } catch (e) {
          if (!(e instanceof Throttled)) throw e;
          throttled = e;
          unprocessedCount++;
          const { Keys: _k, ...rest } = req;
          (unprocessed[name] ??= { ...rest, Keys: [] }).Keys.push(raw);
          continue;
        }
        if (entry) responses[name].push(shape(entry.item, req.ProjectionExpression, ph));
      }
    }
    if (throttled && unprocessedCount === total) throw throttled;
    return { Responses: responses, UnprocessedKeys: unprocessed };
  }

  private query(input: Output): Output {
    const t = this.table(input.TableName);
    const index = typeof input.IndexName === 'string' ? t.index(input.IndexName) : undefined;
    const consistent = input.ConsistentRead === true;
    if (index && consistent) throw validation('Consistent reads are not supported on global secondary indexes');
    if (typeof input.KeyConditionExpression !== 'string')
      throw validation(
        'Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
      );
    const ph = placeholders(
      input,
      [input.KeyConditionExpression, input.FilterExpression],
      undefined,
      input.ProjectionExpression,
    );
    const schema = index ? index.def : t.def;
    const range = keyRange(parseCondition(input.KeyConditionExpression).ast, schema.partitionKey, schema.sortKey, ph);
    const store = index ? index.store : t.store;
    const pk = keyString(range.pk);
    const entries = store.partitions.get(pk) ?? [];
    let lo = range.lo ? firstIndex(entries, range.lo) : 0;
    let hi = range.hi ? firstIndex(entries, range.hi) : entries.length;
    const esk = input.ExclusiveStartKey as Item | undefined;
    if (esk) {
      const probe = {
        sort: schema.sortKey ? esk[schema.sortKey.name] : undefined,
        tie: index ? t.primaryKeyString(esk) : '',
      };
      const cmp = (e: Entry) => compareEntryTo(e, probe);
      if (input.ScanIndexForward === false)
        hi = Math.min(
          hi,
          firstIndex(entries, (e) => cmp(e) >= 0),
        );
      else
        lo = Math.max(
          lo,
          firstIndex(entries, (e) => cmp(e) > 0),
        );
    }
    const forward = input.ScanIndexForward !== false;
    const picked: Entry[] = [];
    while (lo < hi) picked.push(entries[forward ? lo++ : --hi] as Entry);
    return this.page(t, index, pk, picked, input, ph, consistent);
  }

  private scan(input: Output): Output {
    const t = this.table(input.TableName);
    const index = typeof input.IndexName === 'string' ? t.index(input.IndexName) : undefined;
    const consistent = input.ConsistentRead === true;
    if (index && consistent) throw validation('Consistent reads are not supported on global secondary indexes');
    const ph = placeholders(input, [input.FilterExpression], undefined, input.ProjectionExpression);
    const store = index ? index.store : t.store;
    const order = store.scanOrder();
    const segments = typeof input.TotalSegments === 'number' ? input.TotalSegments : 1;
    const segment = typeof input.Segment === 'number' ? input.Segment : 0;
    const esk = input.ExclusiveStartKey as Item | undefined;
    const schema = index ? index.def : t.def;
    let p = 0;
    let startProbe: { sort: unknown; tie: string } | undefined;
    const startPk = esk ? keyString(esk[schema.partitionKey.name]) : '';
    if (esk) {
      p = firstIndex(order, (k) => compareStrings(k, startPk) >= 0);
      if (order[p] === startPk)
        startProbe = {
          sort: schema.sortKey ? esk[schema.sortKey.name] : undefined,
          tie: index ? t.primaryKeyString(esk) : '',
        };
    }
    // Enough entries for one page (Limit, 1 MB): walk partitions in order until then.
    const limit = typeof input.Limit === 'number' ? input.Limit : Number.POSITIVE_INFINITY;
    const picked: Entry[] = [];
    let bytes = 0;
    for (; p < order.length && picked.length < limit && bytes < MAX_PAGE_BYTES; p++) {
      const pk = order[p] as string;
      if (segments > 1 && hashString(pk) % segments !== segment) continue;
      const entries = store.partitions.get(pk) ?? [];
      let i = 0;
      if (startProbe && pk === startPk) {
        const probe = startProbe;
        i = firstIndex(entries, (e) => compareEntryTo(e, probe) > 0);
        startProbe = undefined;
      }
      for (; i < entries.length && picked.length < limit && bytes < MAX_PAGE_BYTES; i++) {
        const e = entries[i] as Entry;
        picked.push(e);
        bytes += e.size;
      }
    }
    const more = p < order.length || picked.length >= limit || bytes >= MAX_PAGE_BYTES;
    return this.page(t, index, undefined, picked, input, ph, consistent, more);
  }

  /**
   * One page of a Query or Scan from the entries in read order: stops at Limit (items evaluated,
   * before the filter) or once 1 MB has been read, charges the bytes read (before filtering) in
   * 4 KB read units, then filters and projects.
   */
  private page(
    t: SimTable,
    index: SimIndex | undefined,
    pk: string | undefined,
    entries: readonly Entry[],
    input: Output,
    ph: Placeholders,
    consistent: boolean,
    scanMore = false,
  ): Output {
    const limit = typeof input.Limit === 'number' ? input.Limit : Number.POSITIVE_INFINITY;
    if (limit < 1) throw validation('Limit must be greater than or equal to 1');
    let bytes = 0;
    let n = 0;
    while (n < entries.length && n < limit && bytes < MAX_PAGE_BYTES) bytes += (entries[n++] as Entry).size;
    const read = entries.slice(0, n);
    const stats = index ? index.stats : t.stats;
    const charges: Charge[] = [];
    if (pk !== undefined) charges.push({ stats, key: pk, units: readUnits(bytes, consistent) });
    else {
      // A scan reads many partitions: charge each one what was read from it.
      const perPk = new Map<string, number>();
      const name = (index ? index.def : t.def).partitionKey.name;
      for (const e of read) {
        const k = keyString(e.item[name]);
        perPk.set(k, (perPk.get(k) ?? 0) + e.size);
      }
      const total = readUnits(bytes, consistent);
      if (perPk.size === 0) charges.push({ stats, key: '', units: total });
      for (const [k, b] of perPk) charges.push({ stats, key: k, units: (b / Math.max(bytes, 1)) * total });
    }
    this.admit(charges, false);
    const filter = typeof input.FilterExpression === 'string' ? parseCondition(input.FilterExpression).ast : undefined;
    const kept = filter ? read.filter((e) => evaluate(filter, e.item, ph)) : read;
    const out: Output = { Count: kept.length, ScannedCount: read.length };
    if (input.Select !== 'COUNT') out.Items = kept.map((e) => shape(e.item, input.ProjectionExpression, ph));
    const stopped = n >= limit || bytes >= MAX_PAGE_BYTES || (scanMore && n === entries.length && n > 0);
    const last = read[read.length - 1];
    if (last && (stopped || n < entries.length)) {
      const lek: Item = {};
      for (const k of t.keyNames) lek[k] = last.item[k];
      if (index) {
        lek[index.def.partitionKey.name] = last.item[index.def.partitionKey.name];
        if (index.def.sortKey) lek[index.def.sortKey.name] = last.item[index.def.sortKey.name];
      }
      out.LastEvaluatedKey = copyItem(lek);
    }
    return out;
  }

  // ---- control plane (raw calls from test harnesses and local/provision.ts) ----

  private createTableCall(input: Output): Output {
    const attrs = new Map(
      ((input.AttributeDefinitions ?? []) as { AttributeName: string; AttributeType: 'S' | 'N' }[]).map((a) => [
        a.AttributeName,
        a.AttributeType,
      ]),
    );
    const keys = (schema: { AttributeName: string; KeyType: string }[]) => {
      const key = (type: string): KeyDef | undefined => {
        const k = schema.find((s) => s.KeyType === type);
        return k ? { name: k.AttributeName, type: attrs.get(k.AttributeName) ?? 'S' } : undefined;
      };
      const partitionKey = key('HASH');
      if (!partitionKey) throw validation('KeySchema must have a HASH key');
      const sortKey = key('RANGE');
      return { partitionKey, ...(sortKey ? { sortKey } : {}) };
    };
    const indexes: IndexDef[] = (
      (input.GlobalSecondaryIndexes ?? []) as {
        IndexName: string;
        KeySchema: { AttributeName: string; KeyType: string }[];
        Projection?: { ProjectionType?: IndexDef['projection']; NonKeyAttributes?: string[] };
      }[]
    ).map((g) => ({
      indexName: g.IndexName,
      ...keys(g.KeySchema),
      projection: g.Projection?.ProjectionType ?? 'ALL',
      ...(g.Projection?.NonKeyAttributes ? { nonKeyAttributes: g.Projection.NonKeyAttributes } : {}),
    }));
    const name = String(input.TableName);
    const def = {
      envVar: 'SIM' as TableDef['envVar'],
      localName: name,
      ...keys((input.KeySchema ?? []) as { AttributeName: string; KeyType: string }[]),
      indexes,
    } as TableDef;
    this.createTable(def, name);
    return { TableDescription: this.describe(this.table(name)) };
  }

  private deleteTableCall(input: Output): Output {
    const t = this.table(input.TableName);
    this.tables.delete(t.name);
    return { TableDescription: { ...this.describe(t), TableStatus: 'DELETING' } };
  }

  private describe(t: SimTable): Output {
    const schema = (pk: KeyDef, sk?: KeyDef) => [
      { AttributeName: pk.name, KeyType: 'HASH' },
      ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' }] : []),
    ];
    const attrs = new Map<string, string>();
    for (const k of [t.def.partitionKey, t.def.sortKey, ...t.def.indexes.flatMap((i) => [i.partitionKey, i.sortKey])])
      if (k) attrs.set(k.name, k.type);
    return {
      TableName: t.name,
      TableStatus: 'ACTIVE',
      ItemCount: t.itemCount,
      BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
      KeySchema: schema(t.def.partitionKey, t.def.sortKey),
      AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
      ...(t.def.indexes.length
        ? {
            GlobalSecondaryIndexes: t.def.indexes.map((i) => ({
              IndexName: i.indexName,
              IndexStatus: 'ACTIVE',
              KeySchema: schema(i.partitionKey, i.sortKey),
              Projection: {
                ProjectionType: i.projection,
                ...(i.nonKeyAttributes ? { NonKeyAttributes: [...i.nonKeyAttributes] } : {}),
              },
            })),
          }
        : {}),
    };
  }

  // ---- report ----

  /** Every item of a table (or of one partition, by its key value), as stored: the model's own audits read storage free of charge. */
  *items(name: string, partitionKey?: string | number): IterableIterator<Readonly<Record<string, unknown>>> {
    const { partitions } = this.table(name).store;
    const chosen = partitionKey === undefined ? partitions.values() : [partitions.get(keyString(partitionKey)) ?? []];
    for (const entries of chosen) for (const e of entries) yield e.item;
  }

  report(): DynamoReport {
    return {
      tables: Object.fromEntries(
        [...this.tables.values()].map((t) => [
          t.name,
          {
            table: t.name,
            items: t.itemCount,
            ...usage(t.stats),
            indexes: Object.fromEntries([...t.indexes].map(([name, i]) => [name, usage(i.stats)])),
          },
        ]),
      ),
      account: {
        rcu: this.accountRead.total,
        wcu: this.accountWrite.total,
        peakRcuPerSecond: this.accountRead.peak,
        peakWcuPerSecond: this.accountWrite.peak,
      },
    };
  }
}

function usage(s: UsageStats): UsageReport {
  return {
    calls: Object.fromEntries(s.calls),
    rcu: s.read.total,
    wcu: s.write.total,
    throttledRequests: s.throttledRequests,
    throttleEvents: s.throttleEvents,
    peakRcuPerSecond: s.read.peak,
    peakWcuPerSecond: s.write.peak,
    topThrottledPartitions: [...s.keyThrottles]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([key, throttles]) => ({ key: key.slice(1), throttles })),
    byCaller: Object.fromEntries([...s.byCaller].sort((a, b) => b[1].rcu + b[1].wcu - a[1].rcu - a[1].wcu)),
    byMinute: Object.fromEntries(s.byMinute),
  };
}

function throttleError(t: Throttled, attempts: number): SimDynamoError {
  const e =
    t.limit === 'partition'
      ? new SimDynamoError(
          'ProvisionedThroughputExceededException',
          'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
        )
      : new SimDynamoError(
          'ThrottlingException',
          t.limit === 'table'
            ? 'Throughput exceeds the current throughput limit for your table or index.'
            : 'Throughput exceeds the current throughput limit for your account.',
        );
  e.$metadata.attempts = attempts;
  return e;
}

function checkSize(item: Item): void {
  if (itemSize(item) > MAX_ITEM_BYTES) throw validation('Item size has exceeded the maximum allowed size');
}

function checkReturnValues(v: unknown, allowed: readonly string[]): void {
  if (v !== undefined && !allowed.includes(v as string))
    throw validation(`ReturnValues can only be ${allowed.join(' or ')}`);
}

/**
 * The request's placeholders, checked as DynamoDB does: every #name and :value an expression uses
 * must be defined, and every one defined must be used.
 */
function placeholders(
  input: Output,
  conditions: readonly unknown[],
  update?: unknown,
  projection?: unknown,
): Placeholders {
  const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  const usedNames = new Set<string>();
  const usedValues = new Set<string>();
  const take = (p: { names: readonly string[]; values: readonly string[] }) => {
    for (const n of p.names) usedNames.add(n);
    for (const v of p.values) usedValues.add(v);
  };
  for (const c of conditions) if (typeof c === 'string') take(parseCondition(c));
  if (typeof update === 'string') take(parseUpdate(update));
  if (typeof projection === 'string') take(parseProjection(projection));
  if (names) {
    if (Object.keys(names).length === 0) throw validation('ExpressionAttributeNames must not be empty');
    const unused = Object.keys(names).filter((n) => !usedNames.has(n));
    if (unused.length)
      throw validation(
        `Value provided in ExpressionAttributeNames unused in expressions: keys: {${unused.join(', ')}}`,
      );
  }
  if (values) {
    const defined = Object.keys(values).filter((k) => values[k] !== undefined);
    if (defined.length === 0) throw validation('ExpressionAttributeValues must not be empty');
    const unused = defined.filter((v) => !usedValues.has(v));
    if (unused.length)
      throw validation(
        `Value provided in ExpressionAttributeValues unused in expressions: keys: {${unused.join(', ')}}`,
      );
  }
  for (const n of usedNames)
    if (names?.[n] === undefined)
      throw validation(
        `Invalid expression: An expression attribute name used in the document path is not defined; attribute name: ${n}`,
      );
  for (const v of usedValues)
    if (values?.[v] === undefined)
      throw validation(
        `Invalid expression: An expression attribute value used in expression is not defined; attribute value: ${v}`,
      );
  return { names, values };
}

/** A copy of the item for the caller, projected when asked. */
function shape(item: Item, projection: unknown, ph: Placeholders): Item {
  if (typeof projection !== 'string') return copyItem(item);
  return copyItem(project(item, parseProjection(projection).ast, ph));
}

/** The first index where the monotone predicate holds (entries.length when it never does). */
function firstIndex<T>(entries: readonly T[], pred: (e: T) => boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(entries[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function compareEntryTo(e: Entry, probe: { sort: unknown; tie: string }): number {
  if (e.sort !== undefined || probe.sort !== undefined) {
    const c = compareScalars(e.sort, probe.sort) ?? 0;
    if (c !== 0) return c;
  }
  return compareStrings(e.tie, probe.tie);
}

/**
 * A KeyConditionExpression as a partition key value and sort key bounds: `lo` and `hi` are
 * monotone predicates on sorted entries (the first entry in range, the first entry past it).
 */
function keyRange(
  cond: Condition,
  pk: KeyDef,
  sk: KeyDef | undefined,
  ph: Placeholders,
): { pk: unknown; lo?: (e: Entry) => boolean; hi?: (e: Entry) => boolean } {
  const parts: Condition[] = [];
  const flatten = (c: Condition) => {
    if (c.kind === 'and') {
      flatten(c.left);
      flatten(c.right);
    } else parts.push(c);
  };
  flatten(cond);
  const invalid = () => validation('Query key condition not supported');
  const name = (p: PathNode) => {
    const s = p.steps[0];
    if (p.steps.length !== 1 || !s || 'index' in s) throw invalid();
    return s.placeholder ? (ph.names?.[s.name] ?? '') : s.name;
  };
  const val = (o: { kind: string; ref?: string }) => {
    if (o.kind !== 'value' || !o.ref) throw invalid();
    return ph.values?.[o.ref];
  };
  let pkValue: unknown;
  let lo: ((e: Entry) => boolean) | undefined;
  let hi: ((e: Entry) => boolean) | undefined;
  const cmp = (e: Entry, v: unknown) => compareScalars(e.sort, v) ?? 0;
  if (parts.length > 2) throw invalid();
  for (const c of parts) {
    if (c.kind === 'compare' && c.left.kind === 'path' && name(c.left) === pk.name && c.op === '=') {
      pkValue = val(c.right);
      continue;
    }
    if (!sk) throw validation('Query condition missed key schema element');
    if (c.kind === 'compare' && c.left.kind === 'path' && name(c.left) === sk.name) {
      const v = val(c.right);
      if (c.op === '=' || c.op === '>=') lo = (e) => cmp(e, v) >= 0;
      if (c.op === '>') lo = (e) => cmp(e, v) > 0;
      if (c.op === '=' || c.op === '<=') hi = (e) => cmp(e, v) > 0;
      if (c.op === '<') hi = (e) => cmp(e, v) >= 0;
      if (c.op === '<>') throw validation('Unsupported operator on KeyConditionExpression: operator: <>');
    } else if (c.kind === 'between' && c.subject.kind === 'path' && name(c.subject) === sk.name) {
      const a = val(c.low);
      const b = val(c.high);
      if ((compareScalars(a, b) ?? 0) > 0)
        throw validation(
          'Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound',
        );
      lo = (e) => cmp(e, a) >= 0;
      hi = (e) => cmp(e, b) > 0;
    } else if (c.kind === 'begins_with' && name(c.path) === sk.name) {
      const p = val(c.arg as { kind: string; ref?: string });
      if (typeof p !== 'string') throw invalid();
      lo = (e) => cmp(e, p) >= 0;
      hi = (e) => cmp(e, p) > 0 && !(e.sort as string).startsWith(p);
    } else throw invalid();
  }
  if (pkValue === undefined) throw validation('Query condition missed key schema element');
  return { pk: pkValue, ...(lo ? { lo } : {}), ...(hi ? { hi } : {}) };
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

// ---- raw (AttributeValue) calls ----

const un = (m: unknown) => (m ? unmarshall(m as Parameters<typeof unmarshall>[0]) : m);
const wire = (m: unknown) => (m ? marshall(m as Item, { removeUndefinedValues: true }) : m);

/** A raw DynamoDBClient input in native form (the data-plane fields that carry AttributeValues). */
function fromWire(command: string, input: Output): Output {
  const out: Output = { ...input };
  for (const f of ['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey']) if (out[f]) out[f] = un(out[f]);
  if (command === 'BatchGetItem' && out.RequestItems)
    out.RequestItems = Object.fromEntries(
      Object.entries(out.RequestItems as Record<string, { Keys: unknown[] }>).map(([t, r]) => [
        t,
        { ...r, Keys: r.Keys.map(un) },
      ]),
    );
  if (command === 'BatchWriteItem' && out.RequestItems)
    out.RequestItems = Object.fromEntries(
      Object.entries(
        out.RequestItems as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>,
      ).map(([t, reqs]) => [
        t,
        reqs.map((r) =>
          r.PutRequest
            ? { PutRequest: { Item: un(r.PutRequest.Item) } }
            : { DeleteRequest: { Key: un(r.DeleteRequest?.Key) } },
        ),
      ]),
    );
  return out;
}

function toWire(command: string, output: Output): Output {
  const out: Output = { ...output };
  for (const f of ['Item', 'Attributes', 'LastEvaluatedKey']) if (out[f]) out[f] = wire(out[f]);
  if (Array.isArray(out.Items)) out.Items = out.Items.map(wire);
  if (command === 'BatchGetItem') {
    out.Responses = Object.fromEntries(
      Object.entries((out.Responses ?? {}) as Record<string, Item[]>).map(([t, l]) => [t, l.map(wire)]),
    );
    out.UnprocessedKeys = Object.fromEntries(
      Object.entries((out.UnprocessedKeys ?? {}) as Record<string, { Keys: Item[] }>).map(([t, r]) => [
        t,
        { ...r, Keys: r.Keys.map(wire) },
      ]),
    );
  }
  if (command === 'BatchWriteItem')
    out.UnprocessedItems = Object.fromEntries(
      Object.entries(
        (out.UnprocessedItems ?? {}) as Record<
          string,
          { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
        >,
      ).map(([t, reqs]) => [
        t,
        reqs.map((r) =>
          r.PutRequest
            ? { PutRequest: { Item: wire(r.PutRequest.Item) } }
            : { DeleteRequest: { Key: wire(r.DeleteRequest?.Key) } },
        ),
      ]),
    );
  return out;
}

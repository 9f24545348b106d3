import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ReplayRecord } from '#domain/replay.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { ReplayProgress, ReplayStore } from '#ports/replay-store.ts';
import { decodeCursor, encodeCursor } from '#ports/page.ts';
import { conditionHeld, ifConditionHolds } from './dynamodb.ts';
import { updateExpression } from './update-expression.ts';
import { INDEXES } from '#config/topology.ts';

/**
 * `byStartedAt` lists the audit trail newest first. Replays are operator actions (a handful a
 * day), so one constant partition is plenty and keeps the listing a single ordered query.
 */
const LIST_KEY = 'replay';
/** Sparse: `runKey` exists only while a replay runs, so the resume sweep reads running replays only. */
const RUN_KEY = 'running';

function toRecord(item: Record<string, unknown>): ReplayRecord {
  const { listKey: _l, runKey: _r, ...rest } = item;
  return rest as unknown as ReplayRecord;
}

export class DynamoDbReplayStore implements ReplayStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(record: ReplayRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...record, listKey: LIST_KEY, ...(record.status === 'running' ? { runKey: RUN_KEY } : {}) },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
  }

  async get(id: string): Promise<ReplayRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }));
    return out.Item ? toRecord(out.Item) : undefined;
  }

  async list(request: PageRequest): Promise<Page<ReplayRecord>> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: INDEXES.replays.byStartedAt,
        KeyConditionExpression: '#k = :k',
        ExpressionAttributeNames: { '#k': 'listKey' },
        ExpressionAttributeValues: { ':k': LIST_KEY },
        ScanIndexForward: false,
        Limit: request.limit,
        ExclusiveStartKey: decodeCursor(request.cursor),
      }),
    );
    const items = (out.Items ?? []).map(toRecord);
    return out.LastEvaluatedKey ? { items, nextCursor: encodeCursor(out.LastEvaluatedKey)! } : { items };
  }

  async acquire(id: string, owner: string, leaseUntil: string, nowIso: string): Promise<ReplayRecord | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: 'SET #owner = :owner, #lease = :lease',
          ConditionExpression:
            '#status = :running AND (attribute_not_exists(#lease) OR #lease < :now OR #owner = :owner)',
          ExpressionAttributeNames: { '#owner': 'leaseOwner', '#lease': 'leaseUntil', '#status': 'status' },
          ExpressionAttributeValues: { ':owner': owner, ':lease': leaseUntil, ':now': nowIso, ':running': 'running' },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return out && toRecord(out.Attributes!);
  }

  async checkpoint(id: string, owner: string, p: ReplayProgress): Promise<boolean> {
    const done = p.status !== 'running';
    const expr = updateExpression({
      matched: p.matched,
      replayed: p.replayed,
      skipped: p.skipped,
      sample: p.sample,
      cursor: p.cursor,
      status: p.status,
      finishedAt: p.finishedAt,
      leaseUntil: p.leaseUntil,
      updatedAt: p.updatedAt,
      runKey: done ? undefined : RUN_KEY,
    });
    return conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          ...expr,
          ConditionExpression: '#leaseOwner = :owner AND #status = :running',
          ExpressionAttributeNames: { ...expr.ExpressionAttributeNames, '#leaseOwner': 'leaseOwner' },
          ExpressionAttributeValues: { ...expr.ExpressionAttributeValues, ':owner': owner, ':running': 'running' },
        }),
      ),
    );
  }

  async listStalled(nowIso: string, limit: number): Promise<readonly string[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: INDEXES.replays.running,
        KeyConditionExpression: '#k = :k AND #lease < :now',
        ExpressionAttributeNames: { '#k': 'runKey', '#lease': 'leaseUntil' },
        ExpressionAttributeValues: { ':k': RUN_KEY, ':now': nowIso },
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((i) => i.id as string);
  }
}

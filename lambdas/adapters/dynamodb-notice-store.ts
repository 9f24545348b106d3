import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { NoticeRecord, NoticeState, NoticeStore, Streak } from '#ports/notice-store.ts';
import { conditionHeld, ifConditionHolds } from './dynamodb.ts';

/**
 * Open streaks share one partition: there are few at any time (one per failing subscription), so
 * the evaluator reads them all with one query and no index.
 */
export const STREAKS_SUBJECT = 'streaks';
/** Notices outlive any streak: TTL takes a notice a year after it was decided (a key it can no longer collide with). */
const NOTICE_TTL_SECONDS = 365 * 86_400;

const DECIDED: NoticeState = 'decided';

function toStreak(item: Record<string, unknown>): Streak {
  const { subject: _s, key: _k, ...rest } = item;
  return rest as unknown as Streak;
}

function toNotice(item: Record<string, unknown>): NoticeRecord {
  const { expiresAt: _e, ...rest } = item;
  return rest as unknown as NoticeRecord;
}

/**
 * The notices table (topology TABLES.notices): every write is a single-item conditional write on
 * a small item, one write unit each, and only when a streak starts or ends or a notice is
 * decided, sent or retried: nothing per delivery or per attempt.
 */
export class DynamoDbNoticeStore implements NoticeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async openStreaks(): Promise<readonly Streak[]> {
    const streaks: Streak[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#s = :s',
          ExpressionAttributeNames: { '#s': 'subject' },
          ExpressionAttributeValues: { ':s': STREAKS_SUBJECT },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      streaks.push(...(out.Items ?? []).map(toStreak));
      start = out.LastEvaluatedKey;
    } while (start);
    return streaks;
  }

  async startStreak(streak: Streak): Promise<Streak> {
    for (let round = 0; round < 3; round++) {
      const put = await conditionHeld(
        this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { subject: STREAKS_SUBJECT, key: streak.subscriptionId, ...streak },
            ConditionExpression: 'attribute_not_exists(#k)',
            ExpressionAttributeNames: { '#k': 'key' },
          }),
        ),
      );
      if (put) return streak;
      const out = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: { subject: STREAKS_SUBJECT, key: streak.subscriptionId },
          ConsistentRead: true,
        }),
      );
      // Ended between the put and the read: try again (the next round's put wins or reads the next one).
      if (out.Item) return toStreak(out.Item);
    }
    throw new Error(`streak of ${streak.subscriptionId} kept starting and ending under this writer`);
  }

  async noteOldestLive(
    subscriptionId: string,
    since: string,
    oldestLive: NonNullable<Streak['oldestLive']>,
  ): Promise<void> {
    await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { subject: STREAKS_SUBJECT, key: subscriptionId },
          UpdateExpression: 'SET #o = :o, #first = if_not_exists(#first, :deadline)',
          ConditionExpression: '#since = :since',
          ExpressionAttributeNames: { '#o': 'oldestLive', '#first': 'firstDeadline', '#since': 'since' },
          ExpressionAttributeValues: { ':o': oldestLive, ':deadline': oldestLive.giveUpAt, ':since': since },
        }),
      ),
    );
  }

  async endStreak(subscriptionId: string, since: string): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { subject: STREAKS_SUBJECT, key: subscriptionId },
          ConditionExpression: '#since = :since',
          ExpressionAttributeNames: { '#since': 'since' },
          ExpressionAttributeValues: { ':since': since },
        }),
      ),
    );
  }

  async noticesOf(subject: string, prefix: string): Promise<readonly NoticeRecord[]> {
    const notices: NoticeRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#s = :s AND begins_with(#k, :p)',
          ExpressionAttributeNames: { '#s': 'subject', '#k': 'key' },
          ExpressionAttributeValues: { ':s': subject, ':p': prefix },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      notices.push(...(out.Items ?? []).map(toNotice));
      start = out.LastEvaluatedKey;
    } while (start);
    return notices;
  }

  async decide(notice: NoticeRecord): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...notice, expiresAt: Math.floor(Date.parse(notice.decidedAt) / 1000) + NOTICE_TTL_SECONDS },
          // The dedupe point: one notice per (subject, anchor, kind), whoever decides it first.
          ConditionExpression: 'attribute_not_exists(#k)',
          ExpressionAttributeNames: { '#k': 'key' },
        }),
      ),
    );
  }

  async takeOver(
    subject: string,
    key: string,
    expectedLeaseUntil: string,
    leaseUntil: string,
  ): Promise<NoticeRecord | undefined> {
    const out = await ifConditionHolds(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { subject, key },
          UpdateExpression: 'SET #lease = :lease ADD #tries :one',
          ConditionExpression: '#state = :decided AND #lease = :expected',
          ExpressionAttributeNames: { '#lease': 'leaseUntil', '#tries': 'tries', '#state': 'state' },
          ExpressionAttributeValues: {
            ':lease': leaseUntil,
            ':expected': expectedLeaseUntil,
            ':decided': DECIDED,
            ':one': 1,
          },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return out?.Attributes ? toNotice(out.Attributes) : undefined;
  }

  async markSent(
    subject: string,
    key: string,
    leaseUntil: string,
    sentAt: string,
    channels: readonly string[],
  ): Promise<boolean> {
    return this.finish(
      subject,
      key,
      leaseUntil,
      'SET #state = :to, #sentAt = :at, #channels = :channels REMOVE #lastError',
      {
        names: { '#sentAt': 'sentAt', '#channels': 'channels', '#lastError': 'lastError' },
        values: { ':to': 'sent' satisfies NoticeState, ':at': sentAt, ':channels': channels },
      },
    );
  }

  async markFailed(
    subject: string,
    key: string,
    leaseUntil: string,
    error: string,
    retryAt: string,
    giveUp: boolean,
  ): Promise<boolean> {
    return this.finish(
      subject,
      key,
      leaseUntil,
      giveUp ? 'SET #state = :to, #lastError = :error' : 'SET #lease = :retry, #lastError = :error',
      {
        names: { '#lastError': 'lastError' },
        values: giveUp
          ? { ':to': 'abandoned' satisfies NoticeState, ':error': error }
          : { ':retry': retryAt, ':error': error },
      },
    );
  }

  /** An update of a decided notice whose lease is still `leaseUntil` (the holder's): a worker that lost it changes nothing. */
  private finish(
    subject: string,
    key: string,
    leaseUntil: string,
    update: string,
    more: { names: Record<string, string>; values: Record<string, unknown> },
  ): Promise<boolean> {
    return conditionHeld(
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { subject, key },
          UpdateExpression: update,
          ConditionExpression: '#state = :decided AND #lease = :held',
          ExpressionAttributeNames: { '#state': 'state', '#lease': 'leaseUntil', ...more.names },
          ExpressionAttributeValues: { ':decided': DECIDED, ':held': leaseUntil, ...more.values },
        }),
      ),
    );
  }
}

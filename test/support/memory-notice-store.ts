import type { NoticeRecord, NoticeStore, Streak } from '#ports/notice-store.ts';

const copy = <T>(value: T): T => structuredClone(value);

/**
 * The notices table in memory, each write honouring its DynamoDB adapter's condition (the
 * contract in notice-store-contract.ts runs against both). `failNext` makes the next write of a
 * method throw, as a throttled table would.
 */
export class InMemoryNoticeStore implements NoticeStore {
  readonly streaks = new Map<string, Streak>();
  readonly notices = new Map<string, NoticeRecord>();
  /** Writes made, by method: the cost a service run would have on the table. */
  readonly writes: string[] = [];

  private id(subject: string, key: string) {
    return `${subject}\u0000${key}`;
  }

  async openStreaks(): Promise<readonly Streak[]> {
    return [...this.streaks.values()].map(copy);
  }

  async startStreak(streak: Streak): Promise<Streak> {
    this.writes.push('startStreak');
    const open = this.streaks.get(streak.subscriptionId);
    if (open) return copy(open);
    this.streaks.set(streak.subscriptionId, copy(streak));
    return copy(streak);
  }

  async noteOldestLive(
    subscriptionId: string,
    since: string,
    oldestLive: NonNullable<Streak['oldestLive']>,
  ): Promise<void> {
    this.writes.push('noteOldestLive');
    const open = this.streaks.get(subscriptionId);
    if (open?.since !== since) return;
    this.streaks.set(subscriptionId, {
      ...open,
      oldestLive: copy(oldestLive),
      firstDeadline: open.firstDeadline ?? oldestLive.giveUpAt,
    });
  }

  async endStreak(subscriptionId: string, since: string): Promise<boolean> {
    this.writes.push('endStreak');
    if (this.streaks.get(subscriptionId)?.since !== since) return false;
    return this.streaks.delete(subscriptionId);
  }

  async noticesOf(subject: string, prefix: string): Promise<readonly NoticeRecord[]> {
    return [...this.notices.values()]
      .filter((n) => n.subject === subject && n.key.startsWith(prefix))
      .sort((a, b) => a.key.localeCompare(b.key))
      .map(copy);
  }

  async decide(notice: NoticeRecord): Promise<boolean> {
    this.writes.push('decide');
    const id = this.id(notice.subject, notice.key);
    if (this.notices.has(id)) return false;
    this.notices.set(id, copy(notice));
    return true;
  }

  async takeOver(
    subject: string,
    key: string,
    expectedLeaseUntil: string,
    leaseUntil: string,
  ): Promise<NoticeRecord | undefined> {
    this.writes.push('takeOver');
    const n = this.notices.get(this.id(subject, key));
    if (n?.state !== 'decided' || n.leaseUntil !== expectedLeaseUntil) return undefined;
    const taken: NoticeRecord = { ...n, leaseUntil, tries: n.tries + 1 };
    this.notices.set(this.id(subject, key), taken);
    return copy(taken);
  }

  async markSent(
    subject: string,
    key: string,
    leaseUntil: string,
    sentAt: string,
    channels: readonly string[],
  ): Promise<boolean> {
    this.writes.push('markSent');
    const n = this.held(subject, key, leaseUntil);
    if (!n) return false;
    const { lastError: _e, ...rest } = n;
    this.notices.set(this.id(subject, key), { ...rest, state: 'sent', sentAt, channels: [...channels] });
    return true;
  }

  async markFailed(
    subject: string,
    key: string,
    leaseUntil: string,
    error: string,
    retryAt: string,
    giveUp: boolean,
  ): Promise<boolean> {
    this.writes.push('markFailed');
    const n = this.held(subject, key, leaseUntil);
    if (!n) return false;
    this.notices.set(
      this.id(subject, key),
      giveUp ? { ...n, state: 'abandoned', lastError: error } : { ...n, leaseUntil: retryAt, lastError: error },
    );
    return true;
  }

  private held(subject: string, key: string, leaseUntil: string): NoticeRecord | undefined {
    const n = this.notices.get(this.id(subject, key));
    return n && n.state === 'decided' && n.leaseUntil === leaseUntil ? n : undefined;
  }
}

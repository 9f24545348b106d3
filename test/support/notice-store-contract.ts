/**
 * What every NoticeStore must do, as cases run against the in-memory store the notifier's unit
 * tests use (test/unit/support/memory-notice-store.test.ts) and the DynamoDB adapter on a real
 * DynamoDB API (test/integration/notice-store-contract.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NoticeRecord, NoticeStore, Streak } from '#ports/notice-store.ts';

export interface NoticeStoreUnderTest {
  readonly store: NoticeStore;
  dispose(): Promise<void>;
}

const T0 = '2024-05-01T12:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const streak = (overrides: Partial<Streak> = {}): Streak => ({
  subscriptionId: 'sub_1',
  since: T0,
  startedAt: at(60),
  ...overrides,
});
const notice = (overrides: Partial<NoticeRecord> = {}): NoticeRecord => ({
  subject: 'sub_1',
  key: `${T0}#failing`,
  kind: 'failing',
  state: 'decided',
  decidedAt: at(3600),
  leaseUntil: at(3720),
  tries: 1,
  ...overrides,
});

/** How many cases the contract has: each opens one store, which the runners check. */
export const NOTICE_CONTRACT_CASES = 5;

export function noticeStoreContract(label: string, open: () => Promise<NoticeStoreUnderTest>): void {
  const withStore = (body: (store: NoticeStore) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await body(opened.store);
    } finally {
      await opened.dispose();
    }
  };

  describe(`NoticeStore contract: ${label}`, () => {
    it(
      'a streak starts once: a second start (another evaluator, another since) gets the open one back',
      withStore(async (store) => {
        assert.deepEqual(await store.startStreak(streak()), streak());
        assert.deepEqual(await store.startStreak(streak({ since: at(5), startedAt: at(61) })), streak());
        await store.startStreak(streak({ subscriptionId: 'sub_2', since: at(9) }));
        assert.deepEqual(
          [...(await store.openStreaks())].sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId)),
          [streak(), streak({ subscriptionId: 'sub_2', since: at(9) })],
        );
      }),
    );

    it(
      'a streak ends only as the one that started at `since`; then a new one may start',
      withStore(async (store) => {
        await store.startStreak(streak());
        assert.equal(await store.endStreak('sub_1', at(1)), false);
        assert.equal(await store.endStreak('sub_1', T0), true);
        assert.equal(await store.endStreak('sub_1', T0), false);
        assert.deepEqual(await store.openStreaks(), []);
        assert.deepEqual(await store.startStreak(streak({ since: at(100) })), streak({ since: at(100) }));
      }),
    );

    it(
      'the oldest live delivery: recorded on the open streak only, the first deadline kept',
      withStore(async (store) => {
        await store.startStreak(streak());
        await store.noteOldestLive('sub_1', at(1), { deliveryId: 'dlv_x', giveUpAt: at(10) });
        assert.deepEqual(await store.openStreaks(), [streak()], 'another streak start: nothing written');
        await store.noteOldestLive('sub_1', T0, { deliveryId: 'dlv_a', giveUpAt: at(100) });
        await store.noteOldestLive('sub_1', T0, { deliveryId: 'dlv_b', giveUpAt: at(200) });
        assert.deepEqual(await store.openStreaks(), [
          streak({ oldestLive: { deliveryId: 'dlv_b', giveUpAt: at(200) }, firstDeadline: at(100) }),
        ]);
      }),
    );

    it(
      "a notice is decided once; noticesOf reads a streak's notices by key prefix",
      withStore(async (store) => {
        assert.equal(await store.decide(notice()), true);
        assert.equal(await store.decide(notice({ leaseUntil: at(9999) })), false, 'the same key again: refused');
        assert.equal(await store.decide(notice({ key: `${T0}#expiring`, kind: 'expiring' })), true);
        assert.equal(await store.decide(notice({ key: `${at(500)}#failing` })), true);
        assert.equal(await store.decide(notice({ subject: 'sub_2' })), true);
        assert.deepEqual((await store.noticesOf('sub_1', `${T0}#`)).map((n) => n.key).sort(), [
          `${T0}#expiring`,
          `${T0}#failing`,
        ]);
        assert.deepEqual(await store.noticesOf('sub_1', `${T0}#failing`), [notice()]);
      }),
    );

    it(
      'sent and failed only by the lease holder; a lapsed lease is taken over once',
      withStore(async (store) => {
        await store.decide(notice());
        assert.equal(
          await store.markSent('sub_1', notice().key, at(1), at(3700), ['email:sent']),
          false,
          'not the holder',
        );
        assert.equal(
          await store.markFailed('sub_1', notice().key, notice().leaseUntil, 'SES throttled', at(4000), false),
          true,
        );
        const [failed] = await store.noticesOf('sub_1', notice().key);
        assert.deepEqual(
          [failed!.state, failed!.leaseUntil, failed!.lastError],
          ['decided', at(4000), 'SES throttled'],
        );
        const taken = await store.takeOver('sub_1', notice().key, at(4000), at(4200));
        assert.deepEqual([taken?.tries, taken?.leaseUntil], [2, at(4200)]);
        assert.equal(
          await store.takeOver('sub_1', notice().key, at(4000), at(4300)),
          undefined,
          'a second taker finds the lease moved',
        );
        assert.equal(
          await store.markSent('sub_1', notice().key, at(4200), at(4100), ['email:sent', 'webhook:1']),
          true,
        );
        const [sent] = await store.noticesOf('sub_1', notice().key);
        assert.deepEqual(
          [sent!.state, sent!.sentAt, sent!.channels, sent!.lastError],
          ['sent', at(4100), ['email:sent', 'webhook:1'], undefined],
        );
        assert.equal(
          await store.takeOver('sub_1', notice().key, at(4200), at(4400)),
          undefined,
          'a sent notice is never taken over',
        );
        await store.decide(notice({ key: 'k2' }));
        assert.equal(await store.markFailed('sub_1', 'k2', notice().leaseUntil, 'gave up', at(0), true), true);
        assert.equal((await store.noticesOf('sub_1', 'k2'))[0]!.state, 'abandoned');
      }),
    );
  });
}

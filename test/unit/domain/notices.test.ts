import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_NOTICE_POLICY,
  dueNotices,
  endpointSignal,
  formatDuration,
  isEmailAddress,
  noticeEventId,
  noticeRecipients,
  recoveredIsDue,
  resolveNoticePolicy,
  type NoticeKind,
  type SampleRow,
  type StreakFacts,
} from '#domain/notices.ts';
import type { InvalidPolicyError } from '#domain/errors.ts';

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const H = 3600;
const policy = DEFAULT_NOTICE_POLICY;

describe('the notice policy', () => {
  it('defaults: 1 h, 24 h, 6 h before expiry, the lost summary within 1 h, recovered on', () => {
    assert.deepEqual(policy, {
      firstAfterSeconds: 3600,
      secondAfterSeconds: 86_400,
      beforeExpirySeconds: 21_600,
      lostAfterSeconds: 3600,
      recovered: 1,
      leaseSeconds: 120,
    });
  });
  it('takes seconds for tests, and refuses what cannot work, naming the field', () => {
    assert.equal(resolveNoticePolicy({ firstAfterSeconds: 2, secondAfterSeconds: 4 }).secondAfterSeconds, 4);
    assert.throws(
      () => resolveNoticePolicy({ firstAfterSeconds: 10, secondAfterSeconds: 5 }),
      (e: InvalidPolicyError) => e.field === 'secondAfterSeconds',
    );
    assert.throws(
      () => resolveNoticePolicy({ recovered: 2 }),
      (e: InvalidPolicyError) => e.field === 'recovered',
    );
    assert.throws(
      () => resolveNoticePolicy({ leaseSeconds: 0 }),
      (e: InvalidPolicyError) => e.field === 'leaseSeconds',
    );
    assert.throws(
      () => resolveNoticePolicy({ everySeconds: 1 }),
      (e: InvalidPolicyError) => e.field === 'everySeconds',
    );
  });
});

describe('endpointSignal(): what the newest deliveries say', () => {
  const row = (id: string, state: SampleRow['state'], attempts: number, updatedAt: string): SampleRow => ({
    id,
    eventId: id,
    state,
    attempts,
    createdAt: at(0),
    updatedAt,
    giveUpAt: at(72 * H),
  });
  const table: ReadonlyArray<readonly [string, SampleRow[], ReturnType<typeof endpointSignal>['kind']]> = [
    [
      'nothing attempted yet (fresh rows, in flight)',
      [row('a', 'pending', 0, at(5)), row('b', 'in_flight', 1, at(9))],
      'none',
    ],
    ['a pending row with attempts: its last one failed', [row('a', 'pending', 2, at(5))], 'failing'],
    [
      'the most recently recorded outcome wins: delivered after a failure',
      [row('a', 'pending', 2, at(5)), row('b', 'delivered', 1, at(6))],
      'healthy',
    ],
    ['…and a failure after a delivery', [row('a', 'pending', 2, at(7)), row('b', 'delivered', 1, at(6))], 'failing'],
    ['dead letters are failures', [row('a', 'expired', 9, at(7)), row('b', 'failed', 1, at(3))], 'failing'],
    ['no rows', [], 'none'],
  ];
  for (const [name, rows, kind] of table) it(name, () => assert.equal(endpointSignal(rows).kind, kind));
});

describe('dueNotices(): each notice at its time, once per streak', () => {
  const facts = (over: Partial<StreakFacts> = {}): StreakFacts => ({
    since: at(0),
    state: 'active',
    decided: new Set<NoticeKind>(),
    live: true,
    lostSince: false,
    oldestLiveDeadline: at(72 * H),
    firstDeadline: at(72 * H),
    ...over,
  });
  const due = (seconds: number, over: Partial<StreakFacts> = {}) =>
    dueNotices(facts(over), policy, T0 + seconds * 1000);
  const table: ReadonlyArray<readonly [string, number, Partial<StreakFacts>, readonly string[]]> = [
    ['nothing before an hour', H - 1, {}, []],
    ['the first notice at 1 h', H, {}, ['failing']],
    ['…once', 2 * H, { decided: new Set(['failing']) }, []],
    ['the second at 24 h', 24 * H, { decided: new Set(['failing']) }, ['still_failing']],
    ['a first notice a day late is not sent beside the second', 25 * H, {}, ['still_failing']],
    [
      'expiring 6 h before the oldest live deadline',
      66 * H,
      { decided: new Set(['failing', 'still_failing']) },
      ['expiring'],
    ],
    ['…not once the deadline passed', 72 * H, { decided: new Set(['failing', 'still_failing']) }, []],
    [
      'lost: something dead-lettered and nothing live any more',
      73 * H,
      {
        decided: new Set(['failing', 'still_failing', 'expiring']),
        lostSince: true,
        live: false,
        oldestLiveDeadline: undefined,
      },
      ['lost'],
    ],
    [
      'lost waits while deliveries are still tried…',
      72 * H + 30 * 60,
      { decided: new Set(['failing', 'still_failing', 'expiring']), lostSince: true, oldestLiveDeadline: at(80 * H) },
      [],
    ],
    [
      "…at most lostAfter past the streak's first deadline",
      73 * H,
      { decided: new Set(['failing', 'still_failing', 'expiring']), lostSince: true, oldestLiveDeadline: at(80 * H) },
      ['lost'],
    ],
    [
      'a paused subscription: no failing notice (nothing is attempted), but expiry and loss',
      66 * H,
      { state: 'paused', lostSince: true, live: false },
      ['expiring', 'lost'],
    ],
    ['a disabled one: only what was lost', 66 * H, { state: 'disabled', lostSince: true, live: false }, ['lost']],
    [
      'permanent failures only (nothing live, no deadline): the first notice and the summary',
      H,
      { lostSince: true, live: false, oldestLiveDeadline: undefined, firstDeadline: undefined },
      ['failing', 'lost'],
    ],
  ];
  for (const [name, seconds, over, expected] of table) it(name, () => assert.deepEqual(due(seconds, over), expected));

  it('recovered only when someone was told, and the setting is on', () => {
    assert.equal(recoveredIsDue(new Set(), policy), false);
    assert.equal(recoveredIsDue(new Set(['failing']), policy), true);
    assert.equal(recoveredIsDue(new Set(['failing']), resolveNoticePolicy({ recovered: 0 })), false);
  });
});

describe('notice helpers', () => {
  it('formatDuration: at most two units, for people', () => {
    assert.deepEqual(
      [0, 1000, 2000, 60_000, 3_600_000, 3_660_000, 86_400_000, 259_200_000 - 3_600_000, 259_200_000].map(
        formatDuration,
      ),
      [
        '0 seconds',
        '1 second',
        '2 seconds',
        '1 minute',
        '1 hour',
        '1 hour 1 minute',
        '1 day',
        '2 days 23 hours',
        '3 days',
      ],
    );
  });
  it('email addresses: one address, nothing that could add a recipient or a header', () => {
    for (const ok of ['a@b.co', 'first.last+tag@sub.example.com', 'x_y-z@a-b.io'])
      assert.equal(isEmailAddress(ok), true, ok);
    for (const bad of [
      '',
      'a',
      'a@b',
      '@b.co',
      'a@@b.co',
      'a b@c.co',
      'a@b.co, c@d.co',
      'a@b.co\r\nBcc: x@y.co',
      '<a@b.co>',
      '"a"@b.co',
      `${'a'.repeat(65)}@b.co`,
      'a@-b.co',
    ])
      assert.equal(isEmailAddress(bad), false, JSON.stringify(bad));
  });
  it('recipients: the contacts, the support address told of every notice (or alone), each once', () => {
    assert.deepEqual(noticeRecipients(['a@x.co', 'b@x.co'], 'help@p.co'), {
      to: ['a@x.co', 'b@x.co'],
      bcc: ['help@p.co'],
    });
    assert.deepEqual(noticeRecipients([], 'help@p.co'), { to: ['help@p.co'], bcc: [] });
    assert.deepEqual(noticeRecipients(['Help@P.co'], 'help@p.co'), { to: ['Help@P.co'], bcc: [] });
    assert.deepEqual(noticeRecipients(undefined, undefined), { to: [], bcc: [] });
  });
  it("the operational event id is the notice's, stable, and differs per notice", () => {
    assert.equal(noticeEventId('sub_1', `${at(0)}#failing`), noticeEventId('sub_1', `${at(0)}#failing`));
    assert.notEqual(noticeEventId('sub_1', `${at(0)}#failing`), noticeEventId('sub_1', `${at(1)}#failing`));
    assert.match(noticeEventId('sub_1', 'k'), /^ntc_[A-Za-z0-9_-]{26}$/);
  });
});

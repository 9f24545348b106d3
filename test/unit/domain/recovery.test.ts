import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  archiveCutoffs,
  archiveDay,
  archiveObjectKey,
  daysBetween,
  decodeArchive,
  encodeArchive,
  isArchivable,
  planBatches,
  type ArchiveRecord,
} from '#domain/archive.ts';
import { autoPauseVerdict } from '#domain/auto-pause.ts';
import { ArchiveFormatError } from '#domain/errors.ts';
import { fixedWindow, retryAfterSeconds } from '#domain/rate-limit.ts';
import {
  matchesCriteria,
  PACE_START_MS,
  pacedDueMs,
  spreadDelaySeconds,
  type ReplayCandidate,
  type ReplayCriteria,
} from '#domain/replay.ts';
import type { DeliveryState } from '#domain/states.ts';

const T0 = '2024-05-01T12:00:00.000Z';

describe('bulk replay: which deliveries a replay takes', () => {
  const criteria: ReplayCriteria = {
    states: ['failed', 'expired'],
    createdFrom: '2024-05-01T00:00:00.000Z',
    createdTo: '2024-05-01T23:59:59.999Z',
  };
  const base: ReplayCandidate = {
    state: 'failed',
    subscriptionId: 'sub_a',
    tenantId: 't1',
    createdAt: T0,
    updatedAt: '2024-05-01T13:00:00.000Z',
  };
  const startedAt = '2024-05-02T09:00:00.000Z';
  const table: [string, Partial<ReplayCandidate>, Partial<ReplayCriteria>, boolean][] = [
    ['a failed delivery in range', {}, {}, true],
    ['an expired one', { state: 'expired' }, {}, true],
    ['a delivered one, by default', { state: 'delivered' }, {}, false],
    ['a delivered one, when asked for', { state: 'delivered' }, { states: ['delivered'] }, true],
    ['a pending one, never', { state: 'pending' }, { states: ['failed', 'expired', 'delivered'] }, false],
    ['created before the range', { createdAt: '2024-04-30T23:59:59.999Z' }, {}, false],
    ['created at the very end of the range', { createdAt: '2024-05-01T23:59:59.999Z' }, {}, true],
    [
      'changed after the replay started (replayed since, or a fresh failure)',
      { updatedAt: '2024-05-02T09:00:00.001Z' },
      {},
      false,
    ],
    ['another subscription', {}, { subscriptionId: 'sub_b' }, false],
    ['its own subscription', {}, { subscriptionId: 'sub_a' }, true],
    ['another tenant', {}, { tenantId: 't2' }, false],
    ['no tenant when one is asked for', { tenantId: undefined }, { tenantId: 't1' }, false],
  ];
  for (const [label, d, c, expected] of table) {
    it(`${expected ? 'takes' : 'skips'} ${label}`, () =>
      assert.equal(matchesCriteria({ ...base, ...d }, { ...criteria, ...c }, startedAt), expected));
  }

  it('spreads re-attempts uniformly over the window in whole seconds, never past its end', () => {
    assert.equal(spreadDelaySeconds(300, 0), 0);
    assert.equal(spreadDelaySeconds(300, 0.5), 150);
    assert.equal(spreadDelaySeconds(300, 0.999999), 299);
    assert.equal(spreadDelaySeconds(0, 0.7), 0, 'window 0: all due now');
    const counts = Array(10).fill(0);
    for (let i = 0; i < 10_000; i++) counts[Math.floor(spreadDelaySeconds(10, i / 10_000))]++;
    assert.deepEqual(counts, Array(10).fill(1000), 'uniform random draws give a flat spread');
  });

  it("paces a rate-limited subscription's replayed deliveries at its limit: the k-th at the start of the pace's k-th turn", () => {
    const start = Date.parse('2024-05-01T12:00:00.030Z'); // in the first 100 ms sub-window of its second
    const pace = start - 30 + PACE_START_MS;
    // 20/s: two places a sub-window, from the sub-window after the pace's start on.
    assert.deepEqual(
      [0, 1, 2, 17, 18, 19, 999].map((k) => pacedDueMs(20, start, k) - pace),
      [100, 100, 200, 900, 1000, 1000, 50_000],
    );
    assert.deepEqual(
      [0, 1, 2].map((k) => pacedDueMs(1, start, k) - pace),
      [1000, 2000, 3000],
    );
  });
});

describe('customer replay limit: fixed windows', () => {
  it('aligns windows to the epoch and counts down to the next one', () => {
    const now = Date.parse('2024-05-01T12:00:42.300Z');
    const w = fixedWindow(now, 60);
    assert.equal(new Date(w.startSeconds * 1000).toISOString(), '2024-05-01T12:00:00.000Z');
    assert.equal(new Date(w.resetAtMs).toISOString(), '2024-05-01T12:01:00.000Z');
    assert.equal(retryAfterSeconds(now, w.resetAtMs), 18);
    assert.equal(retryAfterSeconds(w.resetAtMs - 1, w.resetAtMs), 1, 'never 0');
    assert.equal(fixedWindow(now + 17_700, 60).startSeconds, w.startSeconds + 60);
  });
});

describe('auto-pause verdict', () => {
  const policy = { afterSeconds: 86_400 };
  const streak = (hours: number, count = 30) => ({
    since: T0,
    last: new Date(Date.parse(T0) + hours * 3_600_000).toISOString(),
    count,
  });
  it('keeps a subscription whose streak is shorter than the period', () =>
    assert.deepEqual(autoPauseVerdict('active', streak(23.9), policy), { kind: 'keep' }));
  it('keeps a subscription with no streak', () =>
    assert.deepEqual(autoPauseVerdict('active', undefined, policy), { kind: 'keep' }));
  it('pauses once first and latest dead letter are a period apart, and says why', () => {
    const v = autoPauseVerdict('active', streak(24, 57), policy);
    assert.equal(v.kind, 'pause');
    assert.equal(
      (v as { reason: string }).reason,
      `auto-paused: every delivery since ${T0} was dead-lettered (57 in a row over 24 h, threshold 24 h); fix the endpoint, then resume to drain the backlog`,
    );
  });
  it('never overrides a manual pause or a disable', () => {
    assert.deepEqual(autoPauseVerdict('paused', streak(48), policy), { kind: 'keep' });
    assert.deepEqual(autoPauseVerdict('disabled', streak(48), policy), { kind: 'keep' });
  });
});

describe('archive: selection, batches, keys and format', () => {
  const retention = { deliveredDays: 30, deadLetterDays: 90, ttlSafetyMarginDays: 30, archiveDelivered: 1 };
  const now = Date.parse('2024-05-01T00:00:00.000Z');
  const cutoffs = archiveCutoffs(now, retention);
  it('with archiveDelivered, archives each state after its own retention, and never a live delivery', () => {
    assert.equal(cutoffs.delivered, '2024-04-01T00:00:00.000Z');
    assert.equal(cutoffs.deadLetter, '2024-02-01T00:00:00.000Z');
    assert.equal(cutoffs.latest, cutoffs.delivered);
    const cases: [DeliveryState, string, boolean][] = [
      ['delivered', '2024-03-31T23:59:59.999Z', true],
      ['delivered', '2024-04-01T00:00:00.000Z', false],
      ['failed', '2024-03-01T00:00:00.000Z', false],
      ['expired', '2024-01-31T00:00:00.000Z', true],
      ['pending', '2020-01-01T00:00:00.000Z', false],
      ['in_flight', '2020-01-01T00:00:00.000Z', false],
    ];
    for (const [state, updatedAt, expected] of cases)
      assert.equal(isArchivable({ state, updatedAt }, cutoffs), expected, `${state} ${updatedAt}`);
  });

  it('by default archives dead letters only, and reads nothing created after their cutoff: TTL takes delivered rows', () => {
    const byDefault = archiveCutoffs(now, { ...retention, archiveDelivered: 0 });
    assert.equal(byDefault.archivesDelivered, false);
    assert.equal(byDefault.latest, byDefault.deadLetter);
    assert.equal(isArchivable({ state: 'delivered', updatedAt: '2020-01-01T00:00:00.000Z' }, byDefault), false);
    assert.equal(isArchivable({ state: 'failed', updatedAt: '2024-01-31T00:00:00.000Z' }, byDefault), true);
  });

  it('batches never mix days and never exceed the batch size', () => {
    const items = [
      '2024-01-01T01',
      '2024-01-01T02',
      '2024-01-01T03',
      '2024-01-02T01',
      '2024-01-03T01',
      '2024-01-03T02',
    ].map((t) => ({ createdAt: `${t}:00:00.000Z` }));
    const batches = planBatches(items, 2);
    assert.deepEqual(
      batches.map((b) => b.map((d) => d.createdAt.slice(0, 13))),
      [['2024-01-01T01', '2024-01-01T02'], ['2024-01-01T03'], ['2024-01-02T01'], ['2024-01-03T01', '2024-01-03T02']],
    );
    assert.deepEqual(planBatches([], 10), []);
  });

  it('derives the object key from the day, subscription and ids, whatever their order', () => {
    const key = archiveObjectKey('2024-01-01', 'sub_a', ['dlv_2', 'dlv_1']);
    assert.match(key, /^deliveries\/dt=2024-01-01\/subscription=sub_a\/part-[0-9a-f]{20}\.ndjson\.gz$/);
    assert.equal(
      archiveObjectKey('2024-01-01', 'sub_a', ['dlv_1', 'dlv_2']),
      key,
      'same batch, same key: a re-run overwrites',
    );
    assert.notEqual(archiveObjectKey('2024-01-01', 'sub_a', ['dlv_1']), key);
    assert.equal(archiveDay({ createdAt: '2024-01-01T23:59:59.999Z' }), '2024-01-01');
  });

  it('round-trips NDJSON and refuses what is not an archive record', () => {
    const record: ArchiveRecord = {
      v: 1,
      delivery: {
        id: 'dlv_1',
        eventId: 'evt_1',
        subscriptionId: 'sub_a',
        url: 'https://x',
        state: 'failed',
        attempts: 1,
        attemptSeq: 1,
        nextAttemptAt: T0,
        giveUpAt: T0,
        headers: {},
        createdAt: T0,
        updatedAt: T0,
      },
      attempts: [
        {
          deliveryId: 'dlv_1',
          seq: 1,
          attempt: 1,
          startedAt: T0,
          durationMs: 12,
          status: 422,
          responseSnippet: 'no ✓',
        },
      ],
      event: { id: 'evt_1', type: 'a.b', body: '{"ü":1}', createdAt: T0 },
      archivedAt: T0,
    };
    const text = encodeArchive([record, record]);
    assert.equal(text.split('\n').length, 3, 'one line per record, newline-terminated');
    assert.deepEqual(decodeArchive(text), [record, record]);
    assert.throws(() => decodeArchive('{"v":2}\n'), ArchiveFormatError);
    assert.throws(() => decodeArchive('not json\n', 'k'), /k line 1 is not JSON/);
  });

  it('expands restore ranges and refuses reversed or over-long ones', () => {
    assert.deepEqual(daysBetween('2024-12-31', '2025-01-01'), ['2024-12-31', '2025-01-01']);
    assert.throws(() => daysBetween('2024-01-02', '2024-01-01'), /before/);
    assert.throws(() => daysBetween('2024-01-01', '2025-06-01'), /at most 366/);
    assert.throws(() => daysBetween('2024-13-01', '2024-13-02'), ArchiveFormatError);
  });
});

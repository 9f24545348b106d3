import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  classify,
  decide,
  describe as describeResult,
  type AttemptResult,
  type FailureClass,
  type Outcome,
} from '#domain/classify.ts';
import { DEFAULT_RETRY_POLICY, RETRY_PRESETS, type RetryPolicy } from '#domain/retry-policy.ts';

const NOW = Date.parse('2025-03-01T12:00:00.000Z');
const HOUR_MS = 3_600_000;
const DEFAULT_GIVE_UP = NOW + DEFAULT_RETRY_POLICY.deadlineSeconds * 1000;
/** 2 * 0.5 - 1 = 0: no jitter at all. */
const NO_JITTER = 0.5;
const ALMOST_ONE = 0.9999999999;

function response(status: number, retryAfter?: string): AttemptResult {
  return retryAfter === undefined
    ? { kind: 'response', status, bodySnippet: '', durationMs: 12 }
    : { kind: 'response', status, retryAfter, bodySnippet: '', durationMs: 12 };
}
function failure(kind: 'timeout' | 'network' | 'tls' | 'forbidden_target', message = 'boom'): AttemptResult {
  return { kind, durationMs: 15_000, message };
}

interface Case {
  readonly result: AttemptResult;
  readonly attempts?: number;
  readonly policy?: RetryPolicy;
  readonly nowMs?: number;
  readonly giveUpAtMs?: number;
  readonly random?: number;
}
function run(c: Case): Outcome {
  return decide({
    result: c.result,
    attempts: c.attempts ?? 1,
    policy: c.policy ?? DEFAULT_RETRY_POLICY,
    nowMs: c.nowMs ?? NOW,
    giveUpAtMs: c.giveUpAtMs ?? DEFAULT_GIVE_UP,
    random: c.random ?? NO_JITTER,
  });
}
function retryDelay(outcome: Outcome): number {
  assert.equal(outcome.kind, 'retry', `expected a retry, got ${JSON.stringify(outcome)}`);
  return (outcome as Extract<Outcome, { kind: 'retry' }>).delaySeconds;
}

describe('classify()', () => {
  const table: ReadonlyArray<readonly [string, AttemptResult, FailureClass]> = [
    ['200', response(200), 'success'],
    ['201', response(201), 'success'],
    ['204', response(204), 'success'],
    ['299', response(299), 'success'],
    // Redirects are never followed; the endpoint may get fixed, so they are retried.
    ['301', response(301), 'transient'],
    ['302', response(302), 'transient'],
    ['300', response(300), 'transient'],
    ['400', response(400), 'permanent'],
    ['401', response(401), 'permanent'],
    ['403', response(403), 'permanent'],
    ['404', response(404), 'permanent'],
    ['409', response(409), 'permanent'],
    ['410', response(410), 'permanent'],
    ['413', response(413), 'permanent'],
    ['422', response(422), 'permanent'],
    ['499', response(499), 'permanent'],
    ['408', response(408), 'transient'],
    ['425', response(425), 'transient'],
    ['429', response(429), 'transient'],
    ['500', response(500), 'transient'],
    ['502', response(502), 'transient'],
    ['503', response(503), 'transient'],
    ['504', response(504), 'transient'],
    ['599', response(599), 'transient'],
    ['timeout', failure('timeout'), 'transient'],
    ['network', failure('network'), 'transient'],
    ['tls', failure('tls'), 'transient'],
    ['forbidden_target', failure('forbidden_target'), 'permanent'],
  ];
  for (const [name, result, expected] of table) {
    it(`${name} -> ${expected}`, () => {
      assert.equal(classify(result), expected);
    });
  }
});

describe('describe()', () => {
  const table: ReadonlyArray<readonly [AttemptResult, string]> = [
    [response(503), 'HTTP 503'],
    [response(410), 'HTTP 410'],
    [failure('timeout', 'no response within 15000 ms'), 'timeout: no response within 15000 ms'],
    [failure('network', 'ECONNREFUSED'), 'network: ECONNREFUSED'],
    [failure('tls', 'CERT_HAS_EXPIRED'), 'tls: CERT_HAS_EXPIRED'],
    [failure('forbidden_target', '10.0.0.1 is private'), 'forbidden_target: 10.0.0.1 is private'],
  ];
  for (const [result, text] of table) {
    it(`-> ${text}`, () => assert.equal(describeResult(result), text));
  }
});

describe('decide(): delivered', () => {
  for (const status of [200, 201, 204, 299]) {
    it(`${status} is delivered, whatever the attempt count or deadline`, () => {
      assert.deepEqual(run({ result: response(status) }), { kind: 'delivered' });
      assert.deepEqual(run({ result: response(status), attempts: 50, giveUpAtMs: NOW - 1 }), { kind: 'delivered' });
      assert.deepEqual(
        run({ result: response(status), attempts: 6, policy: RETRY_PRESETS.tenSecondsToThirtyMinutes }),
        { kind: 'delivered' },
      );
    });
  }
});

describe('decide(): failed (permanent, dead-lettered at once)', () => {
  const table: ReadonlyArray<readonly [AttemptResult, string, boolean]> = [
    [response(400), 'HTTP 400', false],
    [response(401), 'HTTP 401', false],
    [response(403), 'HTTP 403', false],
    [response(404), 'HTTP 404', false],
    [response(409), 'HTTP 409', false],
    [response(410), 'HTTP 410', true],
    [response(413), 'HTTP 413', false],
    [response(422), 'HTTP 422', false],
    [failure('forbidden_target', 'resolved to 127.0.0.1'), 'forbidden_target: resolved to 127.0.0.1', false],
  ];
  for (const [result, reason, disable] of table) {
    it(`${reason} -> failed, disableSubscription=${disable}`, () => {
      const expected = { kind: 'dead', state: 'failed', reason, disableSubscription: disable };
      assert.deepEqual(run({ result }), expected);
      // Not retried even on the first attempt with plenty of time and attempts left.
      assert.deepEqual(run({ result, attempts: 1, policy: RETRY_PRESETS.tenSecondsToThirtyMinutes }), expected);
    });
  }

  it('a Retry-After on a 4xx does not turn it into a retry', () => {
    assert.deepEqual(run({ result: response(400, '5') }), {
      kind: 'dead',
      state: 'failed',
      reason: 'HTTP 400',
      disableSubscription: false,
    });
  });
});

describe('decide(): retry delays grow 10, 20, 40, ... capped at maxDelaySeconds', () => {
  const defaults: ReadonlyArray<readonly [number, number]> = [
    [1, 10],
    [2, 20],
    [3, 40],
    [4, 80],
    [5, 160],
    [6, 320],
    [7, 640],
    [8, 1280],
    [9, 2560],
    [10, 3600],
    [11, 3600],
    [30, 3600],
  ];
  for (const [attempts, delay] of defaults) {
    it(`default policy, after attempt ${attempts}: ${delay} s`, () => {
      assert.deepEqual(run({ result: response(503), attempts }), {
        kind: 'retry',
        delaySeconds: delay,
        nextAttemptAtMs: NOW + delay * 1000,
      });
    });
  }

  const capped: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxDelaySeconds: 100 };
  const cappedTable: ReadonlyArray<readonly [number, number]> = [
    [1, 10],
    [2, 20],
    [3, 40],
    [4, 80],
    [5, 100],
    [6, 100],
  ];
  for (const [attempts, delay] of cappedTable) {
    it(`maxDelaySeconds 100, after attempt ${attempts}: ${delay} s`, () => {
      assert.equal(retryDelay(run({ result: response(500), attempts, policy: capped })), delay);
    });
  }

  const tripled: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelaySeconds: 5, multiplier: 3 };
  for (const [attempts, delay] of [
    [1, 5],
    [2, 15],
    [3, 45],
    [4, 135],
  ] as const) {
    it(`initial 5 s, multiplier 3, after attempt ${attempts}: ${delay} s`, () => {
      assert.equal(retryDelay(run({ result: response(500), attempts, policy: tripled })), delay);
    });
  }

  const kinds: readonly AttemptResult[] = [
    response(408),
    response(425),
    response(429),
    response(500),
    response(502),
    response(504),
    response(301),
    failure('timeout'),
    failure('network'),
    failure('tls'),
  ];
  for (const result of kinds) {
    it(`${describeResult(result)} is retried`, () => {
      assert.deepEqual(run({ result, attempts: 2 }), {
        kind: 'retry',
        delaySeconds: 20,
        nextAttemptAtMs: NOW + 20_000,
      });
    });
  }
});

describe('decide(): jitter', () => {
  // [attempts, random, expected delay]; jitter 0.2 -> factor 1 + 0.2 * (2r - 1), rounded.
  const table: ReadonlyArray<readonly [number, number, number]> = [
    [1, 0, 8],
    [1, ALMOST_ONE, 12],
    [1, 0.25, 9],
    [1, 0.75, 11],
    [3, 0, 32],
    [3, ALMOST_ONE, 48],
    [5, 0, 128],
    [5, ALMOST_ONE, 192],
    [8, 0, 1024],
    [8, ALMOST_ONE, 1536],
    // At the cap, jitter can only shorten: 3600 * 1.2 is clamped back to 3600.
    [12, 0, 2880],
    [12, ALMOST_ONE, 3600],
  ];
  for (const [attempts, random, delay] of table) {
    it(`attempt ${attempts}, random ${random}: ${delay} s`, () => {
      assert.deepEqual(run({ result: response(503), attempts, random }), {
        kind: 'retry',
        delaySeconds: delay,
        nextAttemptAtMs: NOW + delay * 1000,
      });
    });
  }

  it('stays within -20 % / +20 % of the base delay for any draw', () => {
    for (let attempts = 1; attempts <= 8; attempts++) {
      const base = 10 * 2 ** (attempts - 1);
      for (let i = 0; i < 200; i++) {
        const random = i / 200;
        const delay = retryDelay(run({ result: response(503), attempts, random }));
        assert.ok(
          delay >= Math.round(base * 0.8) && delay <= Math.round(base * 1.2),
          `attempt ${attempts} random ${random}: ${delay}`,
        );
        assert.ok(Number.isInteger(delay));
      }
    }
  });

  it('jitter 0 ignores the draw', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitter: 0 };
    for (const random of [0, 0.3, ALMOST_ONE])
      assert.equal(retryDelay(run({ result: response(503), attempts: 2, policy, random })), 20);
  });
});

describe('decide(): the delay is never below 1 s', () => {
  const tiny: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    initialDelaySeconds: 1,
    multiplier: 1,
    maxDelaySeconds: 1,
    jitter: 1,
  };
  for (const random of [0, 0.1, 0.2, 0.5, ALMOST_ONE]) {
    it(`initial 1 s, jitter 100 %, random ${random} -> 1 s`, () => {
      assert.deepEqual(run({ result: response(503), random, policy: tiny }), {
        kind: 'retry',
        delaySeconds: 1,
        nextAttemptAtMs: NOW + 1000,
      });
    });
  }
  it('a Retry-After of 0 does not shorten below 1 s', () => {
    assert.equal(retryDelay(run({ result: response(503, '0'), random: 0, policy: tiny })), 1);
  });
});

describe('decide(): Retry-After', () => {
  const inFiveMinutes = new Date(NOW + 300_000).toUTCString();
  const inTwoDays = new Date(NOW + 48 * HOUR_MS).toUTCString();
  const anHourAgo = new Date(NOW - HOUR_MS).toUTCString();
  // [status, header, attempts, expected delay]
  const table: ReadonlyArray<readonly [number, string, number, number]> = [
    [503, '120', 1, 120],
    [429, '120', 1, 120],
    [429, ' 45 ', 1, 45],
    [503, inFiveMinutes, 1, 300],
    // Only ever lengthens the backoff: a short Retry-After does not hurry the schedule.
    [503, '1', 3, 40],
    [503, '0', 2, 20],
    [503, anHourAgo, 2, 20],
    // Clamped to maxDelaySeconds (3600 by default).
    [503, '86400', 1, 3600],
    [503, '99999999999999999999', 1, 3600],
    [429, inTwoDays, 1, 3600],
    // Unreadable values are ignored, the backoff applies.
    [503, 'soon', 1, 10],
    [503, '', 1, 10],
    [503, '1.5e3', 1, 10],
  ];
  for (const [status, header, attempts, delay] of table) {
    it(`${status} with Retry-After ${JSON.stringify(header)} after attempt ${attempts}: ${delay} s`, () => {
      assert.deepEqual(run({ result: response(status, header), attempts }), {
        kind: 'retry',
        delaySeconds: delay,
        nextAttemptAtMs: NOW + delay * 1000,
      });
    });
  }

  it('is clamped to a custom policy maximum too', () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxDelaySeconds: 60 };
    assert.equal(retryDelay(run({ result: response(503, '600'), policy })), 60);
    assert.equal(retryDelay(run({ result: response(503, new Date(NOW + 600_000).toUTCString()), policy })), 60);
  });
});

describe('decide(): never schedules past give_up_at', () => {
  // [attempts, giveUpAt offset from now (ms), retryAfter, expected: delay or 'expired']
  const table: ReadonlyArray<readonly [number, number, string | undefined, number | 'expired']> = [
    [1, 15_000, undefined, 10],
    [2, 15_000, undefined, 'expired'],
    [1, 10_000, undefined, 10], // exactly at the deadline is still allowed
    [1, 9_999, undefined, 'expired'],
    [1, 0, undefined, 'expired'],
    [1, -HOUR_MS, undefined, 'expired'],
    [1, 60_000, '120', 'expired'], // the receiver asks for a wait longer than what is left
    [1, 120_000, '120', 120],
    [9, 2 * HOUR_MS, undefined, 2560],
    [10, 3599_000, undefined, 'expired'],
  ];
  for (const [attempts, offset, retryAfter, expected] of table) {
    it(`attempt ${attempts}, deadline in ${offset} ms, Retry-After ${retryAfter ?? '-'}: ${expected}`, () => {
      const outcome = run({ result: response(503, retryAfter), attempts, giveUpAtMs: NOW + offset });
      if (expected === 'expired') {
        assert.deepEqual(outcome, {
          kind: 'dead',
          state: 'expired',
          reason: 'retry deadline reached: HTTP 503',
          disableSubscription: false,
        });
      } else {
        assert.deepEqual(outcome, { kind: 'retry', delaySeconds: expected, nextAttemptAtMs: NOW + expected * 1000 });
      }
    });
  }

  it('for a network error too, with its message in the reason', () => {
    assert.deepEqual(run({ result: failure('network', 'ECONNRESET'), giveUpAtMs: NOW + 5000 }), {
      kind: 'dead',
      state: 'expired',
      reason: 'retry deadline reached: network: ECONNRESET',
      disableSubscription: false,
    });
  });

  it('holds for every draw and attempt near a deadline', () => {
    for (let attempts = 1; attempts <= 12; attempts++) {
      for (const offsetS of [1, 9, 10, 11, 30, 100, 1000, 4000]) {
        for (const random of [0, 0.5, ALMOST_ONE]) {
          const giveUpAtMs = NOW + offsetS * 1000;
          const outcome = run({ result: response(503), attempts, random, giveUpAtMs });
          assert.ok(outcome.kind === 'retry' || (outcome.kind === 'dead' && outcome.state === 'expired'));
          if (outcome.kind === 'retry')
            assert.ok(outcome.nextAttemptAtMs <= giveUpAtMs, `${attempts}/${offsetS}/${random}`);
        }
      }
    }
  });
});

describe('decide(): maxAttempts', () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3 };
  const table: ReadonlyArray<readonly [number, Outcome]> = [
    [1, { kind: 'retry', delaySeconds: 10, nextAttemptAtMs: NOW + 10_000 }],
    [2, { kind: 'retry', delaySeconds: 20, nextAttemptAtMs: NOW + 20_000 }],
    [3, { kind: 'dead', state: 'expired', reason: 'gave up after 3 attempts: HTTP 500', disableSubscription: false }],
    [4, { kind: 'dead', state: 'expired', reason: 'gave up after 4 attempts: HTTP 500', disableSubscription: false }],
  ];
  for (const [attempts, expected] of table) {
    it(`maxAttempts 3, 500 on attempt ${attempts}: ${expected.kind}`, () => {
      assert.deepEqual(run({ result: response(500), attempts, policy }), expected);
    });
  }
  it('a success on the last allowed attempt is still delivered', () => {
    assert.deepEqual(run({ result: response(200), attempts: 3, policy }), { kind: 'delivered' });
  });
  it('a permanent failure on the last attempt is failed, not expired', () => {
    assert.deepEqual(run({ result: response(410), attempts: 3, policy }), {
      kind: 'dead',
      state: 'failed',
      reason: 'HTTP 410',
      disableSubscription: true,
    });
  });
  it('maxAttempts 1 dead-letters the first transient failure', () => {
    assert.deepEqual(
      run({ result: failure('timeout', 'after 15000 ms'), policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 } }),
      {
        kind: 'dead',
        state: 'expired',
        reason: 'gave up after 1 attempts: timeout: after 15000 ms',
        disableSubscription: false,
      },
    );
  });
  it('without maxAttempts only the deadline stops retries', () => {
    assert.equal(retryDelay(run({ result: response(500), attempts: 500 })), 3600);
  });
});

describe('preset tenSecondsToThirtyMinutes: 6 tries, then a dead letter', () => {
  const preset = RETRY_PRESETS.tenSecondsToThirtyMinutes;

  /** Plays a delivery whose endpoint always answers 503, returning the delays and the final outcome. */
  function simulate(random: number): { delays: number[]; attempts: number; final: Outcome } {
    let now = NOW;
    const giveUpAtMs = NOW + preset.deadlineSeconds * 1000;
    const delays: number[] = [];
    for (let attempts = 1; attempts <= 100; attempts++) {
      const outcome = decide({ result: response(503), attempts, policy: preset, nowMs: now, giveUpAtMs, random });
      if (outcome.kind !== 'retry') return { delays, attempts, final: outcome };
      delays.push(outcome.delaySeconds);
      assert.equal(outcome.nextAttemptAtMs, now + outcome.delaySeconds * 1000);
      now = outcome.nextAttemptAtMs;
    }
    throw new Error('never stopped retrying');
  }

  const table: ReadonlyArray<readonly [string, number, readonly number[]]> = [
    ['no jitter', NO_JITTER, [10, 20, 40, 80, 160]],
    ['-20 % jitter', 0, [8, 16, 32, 64, 128]],
    ['+20 % jitter', ALMOST_ONE, [12, 24, 48, 96, 192]],
  ];
  for (const [name, random, delays] of table) {
    it(`${name}: delays ${delays.join(', ')}, then expired after attempt 6`, () => {
      const run = simulate(random);
      assert.deepEqual(run.delays, delays);
      assert.equal(run.attempts, 6);
      assert.deepEqual(run.final, {
        kind: 'dead',
        state: 'expired',
        reason: 'gave up after 6 attempts: HTTP 503',
        disableSubscription: false,
      });
    });
  }

  it('caps a single delay at 30 min', () => {
    assert.equal(preset.maxDelaySeconds, 1800);
    const long: RetryPolicy = { ...preset, maxAttempts: 20 };
    assert.equal(
      retryDelay(
        decide({
          result: response(503),
          attempts: 10,
          policy: long,
          nowMs: NOW,
          giveUpAtMs: DEFAULT_GIVE_UP,
          random: ALMOST_ONE,
        }),
      ),
      1800,
    );
  });
});

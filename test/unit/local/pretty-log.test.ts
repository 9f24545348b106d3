import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AttemptReport } from '#app/send/outcome.ts';
import { ATTEMPT_LOG_MESSAGE } from '#handlers/sender.ts';
import { prettyLogLine } from '#local/pretty-log.ts';

// A fixed instant, printed in UTC so the snapshot holds in every time zone.
const AT = '2026-05-01T12:03:04.120Z';
const UTC = { timeZone: 'UTC' };

/** What Powertools hands the printer for the sender's attempt record, envelope included. */
function attemptRecord(fields: Partial<AttemptReport>): Record<string, unknown> {
  return {
    level: 'INFO',
    message: ATTEMPT_LOG_MESSAGE,
    timestamp: AT,
    service: 'hookline',
    sampling_rate: 0,
    cold_start: false,
    function_name: 'hookline-local-sender',
    function_request_id: '4f1c',
    deliveryId: 'dlv_1',
    subscriptionId: 'sub_abc',
    eventType: 'invoice.paid',
    host: 'hooks.example.com',
    attempt: 1,
    durationMs: 210,
    outcome: 'succeed',
    state: 'delivered',
    ...fields,
  };
}

describe('prettyLogLine', () => {
  it('prints an attempt as time, subscription, event type, host, status or error, duration and what happens next', () => {
    const lines = [
      attemptRecord({ status: 200, durationMs: 84.6 }),
      attemptRecord({ status: 503, attempt: 2, outcome: 'retry', state: 'pending', retryInSeconds: 20 }),
      attemptRecord({ status: 400, outcome: 'fail_permanently', state: 'failed' }),
      attemptRecord({
        error: 'timeout: no response within 15000 ms',
        durationMs: 15_001,
        outcome: 'give_up',
        state: 'expired',
      }),
      attemptRecord({ status: 200, outcome: 'lost', state: undefined }),
    ].map((record) => prettyLogLine(record, UTC));

    assert.deepEqual(lines, [
      '12:03:04.120  sub_abc  invoice.paid  hooks.example.com  200  85 ms  → delivered',
      '12:03:04.120  sub_abc  invoice.paid  hooks.example.com  503  210 ms  → retry in 20 s',
      '12:03:04.120  sub_abc  invoice.paid  hooks.example.com  400  210 ms  → dead-lettered as failed',
      '12:03:04.120  sub_abc  invoice.paid  hooks.example.com  timeout: no response within 15000 ms  15001 ms  → dead-lettered as expired',
      '12:03:04.120  sub_abc  invoice.paid  hooks.example.com  200  210 ms  → a duplicate: another copy of the delivery wrote its row first',
    ]);
  });

  it('prints any other record as time, level, message and its own fields, without the Powertools envelope', () => {
    const line = prettyLogLine(
      {
        level: 'WARN',
        message: 'ingest message rejected',
        timestamp: AT,
        service: 'hookline',
        function_name: 'hookline-local-ingest',
        messageId: 'm-1',
        receiveCount: 2,
        field: 'type',
        reason: 'a non-empty string is required',
      },
      UTC,
    );

    assert.equal(
      line,
      '12:03:04.120  WARN  ingest message rejected  messageId=m-1  receiveCount=2  field=type  reason="a non-empty string is required"',
    );
  });

  it('an ERROR carries the stack of its error and of the error that caused it, indented under the line', () => {
    const cause = Object.assign(new Error('throttled'), { stack: 'Error: throttled\n    at send (sdk.js:1:1)' });
    const error = Object.assign(new Error('before_attempt failed', { cause }), {
      name: 'DeliveryStageError',
      stack: 'DeliveryStageError: before_attempt failed\n    at stage (send.ts:2:2)',
    });

    const line = prettyLogLine(
      { level: 'ERROR', message: 'delivery message failed', timestamp: AT, deliveryId: 'dlv_1', error },
      UTC,
    );

    assert.equal(
      line,
      [
        '12:03:04.120  ERROR  delivery message failed  deliveryId=dlv_1  error="DeliveryStageError: before_attempt failed"',
        '    DeliveryStageError: before_attempt failed',
        '        at stage (send.ts:2:2)',
        '    caused by Error: throttled',
        '        at send (sdk.js:1:1)',
      ].join('\n'),
    );
  });

  it('an attempt record missing its fields is printed as an ordinary record rather than half a line', () => {
    const line = prettyLogLine(
      { level: 'INFO', message: ATTEMPT_LOG_MESSAGE, timestamp: AT, deliveryId: 'dlv_1' },
      UTC,
    );

    assert.equal(line, `12:03:04.120  INFO  ${ATTEMPT_LOG_MESSAGE}  deliveryId=dlv_1`);
  });
});

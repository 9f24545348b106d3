import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ATTEMPT_LOG_MESSAGE } from '#handlers/sender.ts';
import { chooseLogFormat, InvalidLogFormatError, localLogger } from '#local/local-logger.ts';

/** Runs `fn` with stdout and stderr captured (the logger writes to the process streams, as on Lambda). */
function captured(fn: () => void): { stdout: string; stderr: string } {
  const out = { stdout: '', stderr: '' };
  const write = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = ((chunk: string) => ((out.stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((out.stderr += chunk), true)) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stdout.write = write.stdout;
    process.stderr.write = write.stderr;
  }
  return out;
}

const ATTEMPT = {
  deliveryId: 'dlv_1',
  subscriptionId: 'sub_abc',
  eventType: 'invoice.paid',
  host: 'hooks.example.com',
  attempt: 1,
  status: 503,
  durationMs: 210,
  outcome: 'retry',
  state: 'pending',
  retryInSeconds: 20,
};

describe('local log format', () => {
  it('is pretty on a terminal and JSON otherwise, and HOOKLINE_LOG_FORMAT overrides either', () => {
    assert.equal(chooseLogFormat(undefined, true), 'pretty');
    assert.equal(chooseLogFormat(undefined, false), 'json');
    assert.equal(chooseLogFormat('', false), 'json');
    assert.equal(chooseLogFormat('json', true), 'json');
    assert.equal(chooseLogFormat('pretty', false), 'pretty');
    assert.throws(
      () => chooseLogFormat('text', true),
      (error: unknown) =>
        error instanceof InvalidLogFormatError &&
        /HOOKLINE_LOG_FORMAT "text" is not valid: use pretty or json/.test(error.message),
    );
  });

  it('pretty: the attempt record is one readable line on stdout; a warning goes to stderr', () => {
    const logger = localLogger('INFO', 'pretty');

    const out = captured(() => {
      logger.info(ATTEMPT_LOG_MESSAGE, ATTEMPT);
      logger.warn('ingest message rejected', { field: 'type' });
      logger.debug('not shown at INFO');
    });

    assert.match(
      out.stdout,
      /^\d\d:\d\d:\d\d\.\d{3} {2}sub_abc {2}invoice\.paid {2}hooks\.example\.com {2}503 {2}210 ms {2}→ retry in 20 s\n$/,
    );
    assert.match(out.stderr, /^\d\d:\d\d:\d\d\.\d{3} {2}WARN {2}ingest message rejected {2}field=type\n$/);
  });

  it('json: the same record is the JSON line Powertools prints on AWS', () => {
    const out = captured(() => localLogger('INFO', 'json').info(ATTEMPT_LOG_MESSAGE, ATTEMPT));

    const line = JSON.parse(out.stdout) as Record<string, unknown>;
    assert.equal(line.level, 'INFO');
    assert.equal(line.message, ATTEMPT_LOG_MESSAGE);
    assert.equal(line.service, 'hookline');
    assert.deepEqual(Object.fromEntries(Object.keys(ATTEMPT).map((k) => [k, line[k]])), ATTEMPT);
  });
});

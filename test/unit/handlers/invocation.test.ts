import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import { NotFoundError, RateLimitedError, ValidationError } from '#app/errors.ts';
import { ForbiddenTargetError, InvalidTransitionError } from '#domain/errors.ts';
import { STATE } from '#domain/states.ts';
import { answer } from '#handlers/invocation.ts';
import type { Observability } from '#handlers/observability.ts';

/** A silent logger that keeps what `answer()` logs, to check a refusal is logged as info, not as an error. */
function recordingObs(): Observability & { readonly infos: unknown[][] } {
  const logger = new Logger({ logLevel: 'SILENT' });
  const infos: unknown[][] = [];
  logger.info = ((...args: unknown[]) => void infos.push(args)) as Logger['info'];
  return { logger, infos };
}

describe('answer(): the direct-invoke path', () => {
  it('passes a result through untouched', async () => {
    const obs = recordingObs();
    const result = { replayed: 3 };
    assert.equal(await answer(obs, async () => result), result);
    assert.deepEqual(obs.infos, []);
  });

  // [error, status, code, message]: the same table as the HTTP API, as a value instead of a response.
  const refusals: ReadonlyArray<readonly [Error, number, string, string]> = [
    [
      new ValidationError('action', 'must be archive or restore'),
      400,
      'invalid_request',
      'action: must be archive or restore',
    ],
    [
      new ForbiddenTargetError('must not carry credentials', 'https://u:p@x/'),
      400,
      'invalid_request',
      'url: must not carry credentials',
    ],
    [new NotFoundError('replay', 'rpl_x'), 404, 'not_found', 'replay rpl_x does not exist'],
    [
      new InvalidTransitionError(STATE.inFlight, 'replay'),
      409,
      'conflict',
      `cannot replay a delivery in state '${STATE.inFlight}'`,
    ],
    [new RateLimitedError('slow down', 30), 429, 'rate_limited', 'slow down'],
  ];
  for (const [error, status, code, message] of refusals) {
    it(`answers ${error.name} as {status: ${status}, error: {code: ${code}, message}} and logs it as a refusal`, async () => {
      const obs = recordingObs();
      const result = await answer(obs, async () => {
        throw error;
      });
      assert.deepEqual(result, { status, error: { code, message } });
      assert.equal(obs.infos.length, 1);
      assert.equal(obs.infos[0]![0], 'request refused');
    });
  }

  it('rethrows an error the table does not know, the same object, so Lambda reports a function error', async () => {
    const obs = recordingObs();
    const fault = new Error('ProvisionedThroughputExceededException');
    await assert.rejects(
      answer(obs, async () => {
        throw fault;
      }),
      (e: unknown) => e === fault,
    );
    assert.deepEqual(obs.infos, []);
  });
});

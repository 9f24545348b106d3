import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN } from '#app/access.ts';
import {
  ConflictError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  ValidationError,
} from '#app/errors.ts';
import {
  IDEMPOTENCY_LOCK_SECONDS,
  keyScope,
  MAX_SEALED_ANSWER_CHARS,
  parseIdempotencyKey,
  runIdempotent,
  withKeyAsEventId,
  type Answer,
  type KeyedRequest,
} from '#app/idempotency/idempotency.ts';
import { answerKeys, openAnswer } from '#app/idempotency/sealed-answer.ts';
import { FakeClock } from '#test/fakes.ts';
import { InMemoryIdempotencyStore } from '#test/memory-stores.ts';

const SECRET = 'whsec_do_not_store_me_in_plain_text';
const request: KeyedRequest = {
  scope: 'admin',
  route: 'POST /v1/subscriptions',
  key: 'k-1',
  method: 'POST',
  path: '/v1/subscriptions',
  body: '{"url":"https://a.example/h"}',
};

function setup() {
  const deps = { idempotency: new InMemoryIdempotencyStore(), clock: new FakeClock() };
  let runs = 0;
  const run = async (): Promise<Answer> => {
    runs++;
    return { status: 201, body: { id: `sub_${runs}`, secret: SECRET } };
  };
  return { deps, run, runs: () => runs };
}

describe('runIdempotent', () => {
  it('runs the first request and answers a retry with the same status and body, running nothing again', async () => {
    const { deps, run, runs } = setup();
    const first = await runIdempotent(deps, request, run);
    deps.clock.advance(3_600_000);
    const again = await runIdempotent(deps, request, run);

    assert.deepEqual(first, { status: 201, body: { id: 'sub_1', secret: SECRET } });
    assert.deepEqual(again, first);
    assert.equal(runs(), 1);
  });

  it('keeps nothing readable: the record is found by a hash, and the answer opens only with the key', async () => {
    const { deps, run } = setup();
    await runIdempotent(deps, request, run);

    const [record] = [...deps.idempotency.items.values()];
    const stored = JSON.stringify(record);
    assert.ok(
      !stored.includes(SECRET) && !stored.includes('sub_1') && !stored.includes('k-1') && !stored.includes('a.example'),
      stored,
    );
    assert.equal(record!.id, answerKeys('admin', 'POST /v1/subscriptions', 'k-1').id);
    assert.deepEqual(
      JSON.parse(openAnswer(answerKeys('admin', 'POST /v1/subscriptions', 'k-1'), record!.response!.sealed!)),
      { id: 'sub_1', secret: SECRET },
    );
    assert.throws(
      () =>
        openAnswer(
          { ...answerKeys('admin', 'POST /v1/subscriptions', 'k-2'), id: record!.id },
          record!.response!.sealed!,
        ),
      'another key does not open it',
    );
    assert.equal(record!.expiresAt, Math.ceil(deps.clock.now() / 1000) + 86_400, 'kept 24 h');
  });

  it('refuses the same key with another body or path (422) and runs nothing', async () => {
    const { deps, run, runs } = setup();
    await runIdempotent(deps, request, run);

    await assert.rejects(
      runIdempotent(deps, { ...request, body: '{"url":"https://b.example/h"}' }, run),
      IdempotencyKeyReusedError,
    );
    const replay = { ...request, route: 'POST /v1/deliveries/{deliveryId}/replay', body: null };
    await runIdempotent(deps, { ...replay, path: '/v1/deliveries/dlv_a/replay' }, run);
    await assert.rejects(
      runIdempotent(deps, { ...replay, path: '/v1/deliveries/dlv_b/replay' }, run),
      (e: unknown) =>
        e instanceof IdempotencyKeyReusedError &&
        /k-1 was already used for a different request/.test((e as Error).message),
    );
    assert.equal(runs(), 2, "the first request, and the replay route's first (a key space of its own)");
  });

  it('keeps each scope and route apart: the same key of another tenant, or on another route, is another key', async () => {
    const { deps, run, runs } = setup();
    await runIdempotent(deps, request, run);
    await runIdempotent(
      deps,
      { ...request, scope: keyScope({ role: 'tenant', tenantId: 'acme', keyId: 'key_1' }) },
      run,
    );
    await runIdempotent(
      deps,
      { ...request, scope: keyScope({ role: 'tenant', tenantId: 'globex', keyId: 'key_2' }) },
      run,
    );
    await runIdempotent(deps, { ...request, route: 'POST /v1/replays', path: '/v1/replays' }, run);
    assert.equal(runs(), 4);
    assert.equal(keyScope(ADMIN), 'admin');
    assert.equal(
      keyScope({ role: 'tenant', tenantId: 'acme', keyId: 'key_1' }),
      keyScope({ role: 'tenant', tenantId: 'acme', keyId: 'key_9' }),
      "a tenant's keys share its scope",
    );
  });

  it('answers 409 while the first request with the key still runs, and lets a retry take over once its lock ran out', async () => {
    const { deps, run, runs } = setup();
    let release!: () => void;
    const slow = runIdempotent(
      deps,
      request,
      () => new Promise<Answer>((resolve) => (release = () => resolve({ status: 201, body: { id: 'sub_slow' } }))),
    );
    await new Promise((r) => setImmediate(r));

    await assert.rejects(runIdempotent(deps, request, run), IdempotencyKeyInProgressError);
    await assert.rejects(runIdempotent(deps, request, run), ConflictError, 'a conflict, as the error table answers it');
    deps.clock.advance(IDEMPOTENCY_LOCK_SECONDS * 1000 + 1);
    assert.deepEqual(
      await runIdempotent(deps, request, run),
      { status: 201, body: { id: 'sub_1', secret: SECRET } },
      'the first request died, as far as anyone can tell',
    );
    release();
    assert.deepEqual(await slow, { status: 201, body: { id: 'sub_slow' } }, 'the late one still answers');
    assert.deepEqual(
      await runIdempotent(deps, request, run),
      { status: 201, body: { id: 'sub_1', secret: SECRET } },
      'and the kept answer is the one that held the key',
    );
    assert.equal(runs(), 1);
  });

  it('keeps nothing for a refused or failed first request, so a corrected retry runs', async () => {
    const { deps, run, runs } = setup();
    await assert.rejects(
      runIdempotent(deps, request, async () => {
        throw new ValidationError('url', 'must be https');
      }),
      ValidationError,
    );
    assert.equal(deps.idempotency.items.size, 0);
    await assert.rejects(
      runIdempotent(deps, { ...request, body: '{}' }, async () => {
        throw new Error('DynamoDB throttled');
      }),
      /throttled/,
    );
    assert.equal(deps.idempotency.items.size, 0);

    assert.equal((await runIdempotent(deps, request, run)).status, 201);
    assert.equal(runs(), 1);
  });

  it('keeps only the status of an answer too large to keep, and tells a retry so without running it again', async () => {
    const { deps, runs } = setup();
    let count = 0;
    const big = async (): Promise<Answer> => {
      count++;
      return {
        status: 200,
        body: {
          items: Array.from({ length: 20_000 }, (_, i) => ({
            id: `dlv_${i}_${randomBytes(24).toString('base64url')}`,
          })),
        },
      };
    };
    const first = await runIdempotent(deps, request, big);
    assert.equal(first.status, 200);
    assert.ok(JSON.stringify(first.body).length > MAX_SEALED_ANSWER_CHARS);
    await assert.rejects(
      runIdempotent(deps, request, big),
      (e: unknown) =>
        e instanceof ConflictError && /answered 200, but its answer was too large to keep/.test((e as Error).message),
    );
    assert.equal(count, 1);
    assert.equal(runs(), 0);
  });
});

describe('parseIdempotencyKey', () => {
  it('takes 1 to 255 visible ASCII characters', () => {
    for (const key of ['a', '550e8400-e29b-41d4-a716-446655440000', 'order:42/retry#1', '~'.repeat(255)])
      assert.equal(parseIdempotencyKey(key), key);
    assert.equal(parseIdempotencyKey(undefined), undefined);
  });

  it('refuses anything else naming Idempotency-Key', () => {
    for (const key of ['', ' ', 'with space', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      assert.throws(
        () => parseIdempotencyKey(key),
        (e: unknown) => e instanceof ValidationError && e.field === 'Idempotency-Key',
        JSON.stringify(key),
      );
    }
  });
});

describe('withKeyAsEventId (POST /v1/events)', () => {
  const publish = { type: 'invoice.paid', payloadJson: '{}' };
  it('makes the key the event id, and accepts a body id that says the same', () => {
    assert.deepEqual(withKeyAsEventId(publish, 'inv-1'), { ...publish, id: 'inv-1' });
    assert.deepEqual(withKeyAsEventId({ ...publish, id: 'inv-1' }, 'inv-1'), { ...publish, id: 'inv-1' });
    assert.deepEqual(withKeyAsEventId({ ...publish, id: 'inv-1' }, undefined), { ...publish, id: 'inv-1' });
  });

  it('refuses a key that contradicts the body id, or that cannot be an event id', () => {
    const names = (e: unknown, rule: RegExp) =>
      e instanceof ValidationError && e.field === 'Idempotency-Key' && rule.test(e.rule);
    assert.throws(
      () => withKeyAsEventId({ ...publish, id: 'inv-1' }, 'inv-2'),
      (e) => names(e, /differs from the body's id/),
    );
    assert.throws(
      () => withKeyAsEventId(publish, 'x'.repeat(129)),
      (e) => names(e, /1 to 128 visible ASCII/),
    );
    assert.throws(
      () => withKeyAsEventId(publish, 'has space'),
      (e) => names(e, /becomes the event id/),
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryStageError } from '#app/errors.ts';
import { processDelivery, type SendDeps } from '#app/send/send.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { verifySignature } from '#domain/signing.ts';
import type { StoredSecrets } from '#domain/types.ts';
import type { DueMessage } from '#ports/delivery-queue.ts';
import type { HttpRequest } from '#ports/http-sender.ts';
import type { SecretOpener } from '#ports/secret-sealer.ts';
import { aDelivery, aSubscription, fakeDeps, sealedForTest, TEST_SECRET } from '#test/fakes.ts';

const BODY = '{"id":"evt_1","type":"t","data":{}}';
/** The row's message as the sweeper or a replay sends it: the sender reads the row and the event. */
const DUE: DueMessage = { kind: 'due', deliveryId: 'dlv_1', subscriptionId: 'sub_1' };
const FIRST_RECEIVE = { receiveCount: 1 };

/** A sender world whose subscription stores `secrets`; returns the deps and the POSTs made. */
function world(secrets: StoredSecrets, secretOpener?: SecretOpener) {
  const requests: HttpRequest[] = [];
  const http = {
    post: async (r: HttpRequest): Promise<AttemptResult> => (
      requests.push(r), { kind: 'response', status: 204, bodySnippet: '', durationMs: 1 }
    ),
  };
  const base = fakeDeps();
  const deps: SendDeps = { ...base, ...(secretOpener ? { secretOpener } : {}), http, attemptTimeoutMs: 1000 };
  base.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', secrets }));
  base.deliveries.put(aDelivery({ id: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1' }));
  base.events.items.set('evt_1', {
    id: 'evt_1',
    type: 't',
    body: BODY,
    subscriptionIds: ['sub_1'],
    deliveryIds: ['dlv_1'],
    createdAt: '2024-05-01T12:00:00.000Z',
  });
  return { deps, requests, base };
}

// The fake clock is in 2024, past standardwebhooks' timestamp tolerance: the domain's verifier checks the same HMAC.
const verifies = (secret: string, r: HttpRequest) =>
  verifySignature(
    [secret],
    r.headers['webhook-id']!,
    Number(r.headers['webhook-timestamp']),
    r.body,
    r.headers['webhook-signature']!,
  );

describe('the sender opens sealed secrets to sign', () => {
  it('signs with what the opener returns, asking it for this subscription', async () => {
    const asked: string[] = [];
    const { deps, requests } = world(sealedForTest('sub_1'), { open: async (id) => (asked.push(id), [TEST_SECRET]) });
    await processDelivery(deps, DUE, FIRST_RECEIVE);
    assert.deepEqual(asked, ['sub_1']);
    assert.equal(requests.length, 1);
    assert.ok(verifies(TEST_SECRET, requests[0]!));
  });

  it('a row from before sealing still signs with its plain list (the migration seals it later)', async () => {
    const legacy = 'whsec_bGVnYWN5IHNlY3JldCBmcm9tIGJlZm9yZSBzZWFsaW5n';
    const { deps, requests } = world(
      { scheme: 'plain', secrets: [legacy] },
      { open: async () => assert.fail('a plain row needs no opener') },
    );
    await processDelivery(deps, DUE, FIRST_RECEIVE);
    assert.ok(verifies(legacy, requests[0]!));
  });

  it("secrets that do not open (another subscription's blob) stop the attempt before the POST", async () => {
    const { deps, requests, base } = world(sealedForTest('sub_other'));
    await assert.rejects(
      processDelivery(deps, DUE, FIRST_RECEIVE),
      (e: unknown) => e instanceof DeliveryStageError && e.stage === 'before_attempt',
    );
    assert.equal(requests.length, 0);
    assert.deepEqual(
      [base.deliveries.items.get('dlv_1')!.state, base.deliveries.items.get('dlv_1')!.attemptSeq],
      ['pending', 0],
      'nothing recorded as sent',
    );
  });
});

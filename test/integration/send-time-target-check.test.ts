import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDbSubscriptionStore } from '#adapters/dynamodb-subscription-store.ts';
import { DynamoDbRouteStore } from '#adapters/dynamodb-route-store.ts';
import { routedChange } from '#app/subscriptions/routing.ts';
import { systemClock } from '#adapters/system-clock.ts';
import type { SealedSecrets, Subscription } from '#domain/types.ts';
import { documentClient } from '#adapters/dynamodb.ts';
import { LocalKeySecretCipher, loadLocalSecretsKey } from '#adapters/local-key-secret-cipher.ts';
import { formatSecret } from '#domain/signing.ts';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';

/**
 * Cloud mode (private targets refused). A hostname that was public when the subscription was
 * created can later resolve to a private address (DNS rebinding); the sender checks the
 * address it actually connects to, so such a delivery is refused at send time.
 */
describe('cloud mode: private targets are refused at send time too', () => {
  let stack: LocalStack;
  let subscriptions: DynamoDbSubscriptionStore;
  let routes: DynamoDbRouteStore;
  before(async () => {
    stack = await startLocalStack({ allowPrivateTargets: false });
    const db = documentClient(stack.runtime.clients.dynamodb);
    subscriptions = new DynamoDbSubscriptionStore(db, stack.runtime.env.SUBSCRIPTIONS_TABLE!, 0);
    routes = new DynamoDbRouteStore(db, stack.runtime.env.ROUTES_TABLE!, 0);
  });
  after(() => stack.stop());

  // Stored directly, as if it had passed the creation check before its DNS changed.
  const plant = async (id: string, url: string) => {
    const now = new Date().toISOString();
    const sub: Subscription & { secrets: SealedSecrets } = {
      id,
      url,
      eventTypes: [`${id}.test`],
      state: 'active',
      stateChangedAt: now,
      createdAt: now,
      updatedAt: now,
      routeVersion: 1,
      routedPatterns: [`${id}.test`],
      // Sealed with the runtime's own local key, as createSubscription would have stored it.
      secrets: await new LocalKeySecretCipher(loadLocalSecretsKey(stack.runtime.dataDir)).seal(id, [
        formatSecret(new Uint8Array(32).fill(7)),
      ]),
      retryPolicy: { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: 0, deadlineSeconds: 30 },
    };
    // Routed as createSubscription routes it.
    await routedChange({ subscriptions, routes, clock: systemClock }, id, async () => {
      await subscriptions.create(sub);
      return sub;
    });
  };

  for (const [name, url] of [
    // Allowed ports (HOOKLINE_ALLOWED_PORTS): these are refused for their address alone.
    ['hostname resolving to loopback', `http://localhost:8080/hook`],
    ['IPv4 literal', `http://127.0.0.1:8080/hook`],
    ['IPv4-mapped IPv6 literal', `http://[::ffff:127.0.0.1]:8080/hook`],
    ['metadata address', `http://169.254.169.254/latest/meta-data/`],
    // Only targets whose refusal keeps the test on loopback even if the rule broke (the new
    // transition ranges and the port rule are covered by the unit tables and the sender's test).
    ['NAT64 of a private address', `http://[64:ff9b::a00:1]/hook`],
  ] as const) {
    it(`dead-letters a delivery to a ${name} as failed without connecting`, async () => {
      const id = `sub_rebind${name.replace(/\W/g, '').slice(0, 20)}`;
      await plant(id, url);
      const { deliveryIds } = await stack.publish(`${id}.test`, {});
      assert.equal(deliveryIds.length, 1);
      const d = await stack.waitForState(deliveryIds[0]!, ['failed']);
      assert.match(d.lastError, /forbidden_target/);
      assert.equal(d.attemptLog.length, 1);
      assert.equal(d.attemptLog[0].status, null);
    });
  }

  it('refuses the same targets when a subscription is created', async () => {
    for (const url of [
      'http://localhost:8080/hook',
      'http://127.0.0.1/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://169.254.169.254/',
      'http://[2001::1]/',
      'http://93.184.216.34:22/',
    ]) {
      const res = await stack.api.post('/v1/subscriptions', { url });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.error.code, 'invalid_request');
    }
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FunctionKey } from '../../lambdas/config/topology.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { validateAllowedTargetPorts, WebhookDelivery } from '../../lib/webhook-delivery.ts';
import { bareStack, synthHookline } from './helpers/synth.ts';

describe('allowedTargetPorts (HOOKLINE_ALLOWED_PORTS)', () => {
  test('defaults to the domain default, and a given list is written the way the handlers read it', () => {
    assert.equal(validateAllowedTargetPorts(undefined), '80,443,1024-65535');
    assert.equal(validateAllowedTargetPorts(' 443 , 8000 - 8999'), '443,8000-8999');
  });

  test('a list that is not ports fails the synth, naming the prop', () => {
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { allowedTargetPorts: '443,ssh' }),
      (e: unknown) =>
        e instanceof InvalidPropError &&
        e.prop === 'allowedTargetPorts' &&
        /must be a comma-separated list of ports/.test(e.message),
    );
  });

  test('reaches the api (checked at creation) and the sender (checked at every send), and no other function', () => {
    const { json } = synthHookline({ allowedTargetPorts: '443,8443' }, 'HooklinePorts');
    const envOf = (key: FunctionKey) =>
      (findTopologyResource(json, `function/${key}`).properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
    assert.equal(envOf('api').HOOKLINE_ALLOWED_PORTS, '443,8443');
    assert.equal(envOf('sender').HOOKLINE_ALLOWED_PORTS, '443,8443');
    for (const key of ['ingest', 'sweeper', 'replay', 'archiver'] as const)
      assert.equal(envOf(key).HOOKLINE_ALLOWED_PORTS, undefined, key);
  });
});

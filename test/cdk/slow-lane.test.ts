import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Duration } from 'aws-cdk-lib';
import {
  EVENT_SOURCES,
  FUNCTIONS,
  type FunctionKey,
  QUEUES,
  slowLaneMaxConcurrencyFor,
} from '../../lambdas/config/topology.ts';
import { SLOW_LANE } from '../../lambdas/domain/slow-lane.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { WebhookDelivery } from '../../lib/webhook-delivery.ts';
import { bareStack, defaultHookline, resourcesOfType, synthHookline } from './helpers/synth.ts';

const slowSource = EVENT_SOURCES.find((s) => s.queue === 'slowDelivery')!;
const mainSource = EVENT_SOURCES.find((s) => s.queue === 'delivery')!;

describe('the slow lane: its own queue, consumed by the sender with a cap of its own', () => {
  const { template, json } = defaultHookline();
  const sender = findTopologyResource(json, 'function/sender');
  const envOf = (key: FunctionKey) =>
    (findTopologyResource(json, `function/${key}`).properties.Environment as { Variables?: Record<string, unknown> })
      ?.Variables ?? {};
  const slowQueue = findTopologyResource(json, 'queue/slowDelivery');

  test('a queue with the delivery queue’s settings and a redrive queue of its own', () => {
    assert.equal(slowQueue.properties.VisibilityTimeout, QUEUES.slowDelivery.visibilityTimeoutSeconds);
    assert.equal(slowQueue.properties.MessageRetentionPeriod, QUEUES.slowDelivery.retentionSeconds);
    const redrive = findTopologyResource(json, 'redrive/slowDelivery');
    assert.deepEqual(slowQueue.properties.RedrivePolicy, {
      deadLetterTargetArn: { 'Fn::GetAtt': [redrive.logicalId, 'Arn'] },
      maxReceiveCount: QUEUES.slowDelivery.maxReceiveCount,
    });
  });

  test('the sender consumes it with the slow lane’s cap, beside the delivery queue’s mapping', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: sender.logicalId },
      EventSourceArn: { 'Fn::GetAtt': [slowQueue.logicalId, 'Arn'] },
      BatchSize: slowSource.batchSize,
      MaximumBatchingWindowInSeconds: slowSource.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // The default cap follows the main lane's default.
      ScalingConfig: { MaximumConcurrency: slowLaneMaxConcurrencyFor(mainSource.maxConcurrency) },
    });
  });

  test('the sender knows the queue and the threshold; no other function does', () => {
    const env = envOf('sender');
    assert.deepEqual(env.SLOW_DELIVERY_QUEUE_URL, { Ref: slowQueue.logicalId });
    assert.equal(env.HOOKLINE_SLOW_LANE_AFTER_MS, String(SLOW_LANE.slowAfterMs));
    // The default stack's functions (the authorizer only comes with an API Gateway entry).
    for (const key of (Object.keys(defaultHookline().stack.delivery.functions) as FunctionKey[]).filter(
      (k) => k !== 'sender',
    ))
      assert.equal(envOf(key).SLOW_DELIVERY_QUEUE_URL, undefined, key);
  });

  test('the sender may receive, delete, send and change visibility on it, and no other function may', () => {
    const statements = resourcesOfType(json, 'AWS::IAM::Policy').flatMap(([id, p]) =>
      (
        p.Properties!.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
      ).Statement.filter((st) => JSON.stringify(st.Resource).includes(slowQueue.logicalId)).map((st) => ({
        id,
        actions: [st.Action].flat(),
      })),
    );
    assert.ok(statements.length > 0);
    for (const { id, actions } of statements) {
      assert.match(id, /Sender/, `${id} reaches the slow lane`);
      for (const action of [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:SendMessage',
        'sqs:ChangeMessageVisibility',
      ])
        assert.ok(actions.includes(action), `${id}: ${action}`);
    }
  });
});

describe('the slow lane’s props', () => {
  test('senderSlowLaneMaxConcurrency sets the cap; senderSlowAfter the threshold, 0 turning it off', () => {
    const { template, json } = synthHookline(
      { senderSlowLaneMaxConcurrency: 25, senderSlowAfter: Duration.millis(0) },
      'HooklineSlowLane',
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [findTopologyResource(json, 'queue/slowDelivery').logicalId, 'Arn'] },
      ScalingConfig: { MaximumConcurrency: 25 },
    });
    const env = findTopologyResource(json, 'function/sender').properties.Environment as {
      Variables: Record<string, unknown>;
    };
    assert.equal(env.Variables.HOOKLINE_SLOW_LANE_AFTER_MS, '0');
  });

  test('without senderSlowLaneMaxConcurrency the cap follows senderMaxConcurrency: a quarter of it, at least 10', () => {
    for (const [main, slow] of [
      [20, 10],
      [41, 11],
      [400, 100],
    ] as const) {
      const { template, json } = synthHookline({ senderMaxConcurrency: main }, `HooklineSlowLane${main}`);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [findTopologyResource(json, 'queue/slowDelivery').logicalId, 'Arn'] },
        ScalingConfig: { MaximumConcurrency: slow },
      });
    }
  });

  test('senderSlowAfter longer than the sender function’s timeout: refused, naming the prop', () => {
    assert.throws(
      () =>
        new WebhookDelivery(bareStack(), 'Hooks', {
          senderSlowAfter: Duration.seconds(FUNCTIONS.sender.timeoutSeconds + 1),
        }),
      (e: Error) => e instanceof InvalidPropError && /^senderSlowAfter must be whole milliseconds/.test(e.message),
    );
  });
});

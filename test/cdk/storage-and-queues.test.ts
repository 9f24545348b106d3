import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Capture, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import {
  EVENT_SOURCES,
  FUNCTIONS,
  QUEUES,
  TABLES,
  type QueueKey,
  type TableKey,
} from '../../lambdas/config/topology.ts';
import { DEFAULT_RETRY_POLICY, RETRY_PRESETS } from '../../lambdas/domain/retry-policy.ts';
import { HooklineQueues } from '../../lib/constructs/queues.ts';
import { HooklineStorage } from '../../lib/constructs/storage.ts';
import { findTopologyResource, type TemplateJson } from '../../lib/topology-metadata.ts';
import { worstCaseAttempts } from '../../lib/webhook-delivery.ts';
import { bareStack } from './helpers/synth.ts';
import { actionsOf, type Statement } from './helpers/template.ts';

const TABLE_KEYS = Object.keys(TABLES) as TableKey[];
const QUEUE_KEYS = Object.keys(QUEUES) as QueueKey[];

function storageTemplate(props?: ConstructorParameters<typeof HooklineStorage>[2]) {
  const stack = bareStack();
  const storage = new HooklineStorage(stack, 'Storage', props);
  return { stack, storage, template: Template.fromStack(stack) };
}

describe('storage: DynamoDB tables', () => {
  const { template } = storageTemplate();
  const json = template.toJSON() as TemplateJson;

  test('one table per TABLES entry, nothing else', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', TABLE_KEYS.length);
  });

  test('every table is on-demand with point-in-time recovery', () => {
    template.allResourcesProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  test("pointInTimeRecovery 'configuration' keeps it on the configuration tables only, 'none' on none", () => {
    const pitr = (json: TemplateJson, key: TableKey) =>
      (
        findTopologyResource(json, `table/${key}`).properties.PointInTimeRecoverySpecification as {
          PointInTimeRecoveryEnabled: boolean;
        }
      ).PointInTimeRecoveryEnabled;
    const configuration = storageTemplate({ pointInTimeRecovery: 'configuration' }).template.toJSON() as TemplateJson;
    const traffic = TABLE_KEYS.filter((key) => TABLES[key].traffic);
    assert.deepEqual(traffic.sort(), [
      'attempts',
      'deliveries',
      'events',
      'idempotencyKeys',
      'ingestManifests',
      'rateLimits',
    ]);
    for (const key of TABLE_KEYS) assert.equal(pitr(configuration, key), !TABLES[key].traffic, key);
    const none = storageTemplate({ pointInTimeRecovery: 'none' }).template.toJSON() as TemplateJson;
    for (const key of TABLE_KEYS) assert.equal(pitr(none, key), false, key);
  });

  test('by default every table is deletion-protected and retained', () => {
    template.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    template.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  for (const key of TABLE_KEYS) {
    const def = TABLES[key];
    test(`${key}: TTL ${def.ttlAttribute ? `on ${def.ttlAttribute}` : 'off'}`, () => {
      const { properties } = findTopologyResource(json, `table/${key}`);
      if (def.ttlAttribute) {
        assert.deepEqual(properties.TimeToLiveSpecification, { AttributeName: def.ttlAttribute, Enabled: true });
      } else {
        assert.equal(properties.TimeToLiveSpecification, undefined);
      }
    });
  }

  test('deliveries: keyed on the sharded listing itself, with the sparse dead-letter and active indexes and only those', () => {
    // [index, partition key, sort key, projection], written out here rather than read from the topology.
    const expected = [
      ['deadLetterShard', 'dlShard', 'updatedAt', 'ALL'],
      ['deadLettersBySubscriptionShard', 'dlSubscriptionShard', 'updatedAt', 'ALL'],
      ['active', 'activeShard', 'nextAttemptAt', 'KEYS_ONLY'],
    ] as const;
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      // A subscription's deliveries are a query of the table: no index entry to write per delivery.
      KeySchema: [
        { AttributeName: 'subscriptionShard', KeyType: 'HASH' },
        { AttributeName: 'listKey', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.exact(
        expected.map(([IndexName, hash, range, ProjectionType]) =>
          Match.objectLike({
            IndexName,
            KeySchema: [
              { AttributeName: hash, KeyType: 'HASH' },
              { AttributeName: range, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType },
          }),
        ),
      ),
    });
  });

  test("routes: keyed on (audience and segment, pattern and subscription), with every audience's segment as its one index", () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'route', KeyType: 'HASH' },
        { AttributeName: 'entry', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.exact([
        Match.objectLike({
          IndexName: 'bySegment',
          KeySchema: [
            { AttributeName: 'segment', KeyType: 'HASH' },
            { AttributeName: 'entry', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ]),
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  test("subscriptions: keyed on id, with a tenant's listing as its one index (one GSI added by an upgrade, as CloudFormation allows), without the secrets", () => {
    const { properties } = findTopologyResource(json, 'table/subscriptions');
    const projected = (properties.GlobalSecondaryIndexes as { Projection: { NonKeyAttributes: string[] } }[])[0]!
      .Projection.NonKeyAttributes;
    for (const secret of ['secrets', 'secretExpiry', 'secretsVersion']) assert.ok(!projected.includes(secret), secret);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'tenantId', AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'S' },
      ]),
      GlobalSecondaryIndexes: Match.exact([
        // What a listing shows, and never the sealed secrets.
        Match.objectLike({
          IndexName: 'byTenant',
          KeySchema: [
            { AttributeName: 'tenantId', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: Match.arrayWith(['url', 'eventTypes', 'publicKeys', 'state']),
          },
        }),
      ]),
    });
  });

  test('a test stack can opt out: DESTROY turns deletion protection off and deletes the tables', () => {
    const { template: t } = storageTemplate({ removalPolicy: RemovalPolicy.DESTROY });
    t.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    t.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  test('deletion protection can be set independently of the removal policy', () => {
    const { template: t } = storageTemplate({ removalPolicy: RemovalPolicy.DESTROY, deletionProtection: true });
    t.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
  });

  test('grant(): read access carries no write action, write access no read action', () => {
    const stack = bareStack();
    const storage = new HooklineStorage(stack, 'Storage');
    const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
    const writer = new iam.Role(stack, 'Writer', { assumedBy: new iam.AccountRootPrincipal() });
    storage.grant(reader, { events: 'read' });
    storage.grant(writer, { attempts: 'write' });
    const t = Template.fromStack(stack).toJSON() as TemplateJson;
    const actionsFor = (roleId: string) =>
      Object.entries(t.Resources)
        .filter(([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties?.Roles).includes(roleId))
        .flatMap(([, r]) => (r.Properties!.PolicyDocument as { Statement: Statement[] }).Statement.flatMap(actionsOf));
    const readerId = stack.getLogicalId(reader.node.defaultChild as iam.CfnRole);
    const writerId = stack.getLogicalId(writer.node.defaultChild as iam.CfnRole);
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const reads = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:BatchGetItem'];
    assert.ok(actionsFor(readerId).includes('dynamodb:GetItem'));
    for (const a of writes) assert.ok(!actionsFor(readerId).includes(a), `reader must not have ${a}`);
    assert.ok(actionsFor(writerId).includes('dynamodb:PutItem'));
    for (const a of reads) assert.ok(!actionsFor(writerId).includes(a), `writer must not have ${a}`);
  });

  test('environmentValues() maps each table env var to its table name', () => {
    const { stack, storage } = storageTemplate();
    const values = storage.environmentValues();
    for (const key of TABLE_KEYS) {
      assert.deepEqual(stack.resolve(values[TABLES[key].envVar]), {
        Ref: stack.getLogicalId(storage.tables[key].node.defaultChild as never),
      });
    }
  });
});

describe('queues: work queues with their own redrive queues', () => {
  const stack = bareStack();
  new HooklineQueues(stack, 'Queues');
  const template = Template.fromStack(stack);
  const json = template.toJSON() as TemplateJson;

  test('two work queues and two redrive queues', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2 * QUEUE_KEYS.length);
  });

  test('every queue uses SQS-managed server-side encryption', () => {
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  });

  test('every queue denies requests that are not over TLS (enforceSSL)', () => {
    const queueIds = Object.entries(json.Resources)
      .filter(([, r]) => r.Type === 'AWS::SQS::Queue')
      .map(([id]) => id);
    for (const id of queueIds) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  for (const key of QUEUE_KEYS) {
    const def = QUEUES[key];
    test(`${key}: redrives to its own redrive queue after ${def.maxReceiveCount} receives`, () => {
      const work = findTopologyResource(json, `queue/${key}`);
      const redrive = findTopologyResource(json, `redrive/${key}`);
      const target = new Capture();
      template.hasResourceProperties('AWS::SQS::Queue', {
        VisibilityTimeout: def.visibilityTimeoutSeconds,
        RedrivePolicy: { deadLetterTargetArn: target, maxReceiveCount: def.maxReceiveCount },
      });
      assert.deepEqual(work.properties.RedrivePolicy, {
        deadLetterTargetArn: { 'Fn::GetAtt': [redrive.logicalId, 'Arn'] },
        maxReceiveCount: def.maxReceiveCount,
      });
      assert.equal(redrive.properties.RedrivePolicy, undefined, 'a redrive queue does not redrive further');
    });

    test(`${key}: the redrive queue keeps messages at least as long as the work queue`, () => {
      const work = findTopologyResource(json, `queue/${key}`);
      const redrive = findTopologyResource(json, `redrive/${key}`);
      assert.ok(
        (redrive.properties.MessageRetentionPeriod as number) >= (work.properties.MessageRetentionPeriod as number),
      );
    });
  }

  for (const source of EVENT_SOURCES) {
    test(`${source.queue}: visibility timeout is at least 6x the ${source.function} timeout`, () => {
      const visibility = findTopologyResource(json, `queue/${source.queue}`).properties.VisibilityTimeout as number;
      assert.ok(
        visibility >= 6 * FUNCTIONS[source.function].timeoutSeconds,
        `${visibility} < 6 x ${FUNCTIONS[source.function].timeoutSeconds}`,
      );
    });
  }

  test('delivery queue retention outlives the default retry deadline', () => {
    const retention = findTopologyResource(json, 'queue/delivery').properties.MessageRetentionPeriod as number;
    assert.ok(
      retention > DEFAULT_RETRY_POLICY.deadlineSeconds,
      `${retention}s <= ${DEFAULT_RETRY_POLICY.deadlineSeconds}s`,
    );
  });

  test('business retries never redrive: every retry preset needs fewer receives than maxReceiveCount', () => {
    const maxReceiveCount = findTopologyResource(json, 'queue/delivery').properties.RedrivePolicy as {
      maxReceiveCount: number;
    };
    for (const [name, policy] of Object.entries(RETRY_PRESETS)) {
      const attempts = worstCaseAttempts(policy);
      assert.ok(
        attempts < maxReceiveCount.maxReceiveCount,
        `${name}: ${attempts} attempts >= ${maxReceiveCount.maxReceiveCount}`,
      );
    }
  });

  test('the ingest queue redrives poison events quickly (few receives)', () => {
    const ingest = findTopologyResource(json, 'queue/ingest').properties.RedrivePolicy as { maxReceiveCount: number };
    assert.ok(ingest.maxReceiveCount <= 10);
  });
});

import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import {
  DEFAULT_POINT_IN_TIME_RECOVERY,
  TABLES,
  type KeyDef,
  type PointInTimeRecovery,
  type TableKey,
} from '../../lambdas/config/topology.ts';
import { markTopology } from '../topology-metadata.ts';
import type { EnvironmentValues } from './environment.ts';

export interface HooklineStorageProps {
  /**
   * What happens to the tables when they leave the stack. Keep RETAIN for anything holding
   * real deliveries; DESTROY is for throwaway test stacks.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** DynamoDB deletion protection. @default true unless removalPolicy is DESTROY */
  readonly deletionProtection?: boolean;
  /** Which tables keep point-in-time recovery (POINT_IN_TIME_RECOVERY in topology.ts). @default 'all' */
  readonly pointInTimeRecovery?: PointInTimeRecovery;
}

/** Data access to one table: read-only, write-only (put/update/delete, e.g. an append-only log) or both. */
export type TableAccess = 'read' | 'write' | 'readWrite';
/** The tables one function may touch, and how. Tables not named get no access. */
export type TableGrants = Readonly<Partial<Record<TableKey, TableAccess>>>;

const ATTRIBUTE_TYPES = { S: dynamodb.AttributeType.STRING, N: dynamodb.AttributeType.NUMBER } as const;
const attribute = (key: KeyDef): dynamodb.Attribute => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });
const PROJECTIONS = {
  ALL: dynamodb.ProjectionType.ALL,
  KEYS_ONLY: dynamodb.ProjectionType.KEYS_ONLY,
  INCLUDE: dynamodb.ProjectionType.INCLUDE,
} as const;

/**
 * The DynamoDB tables and their indexes exactly as TABLES describes them: on-demand,
 * point-in-time recovery where `pointInTimeRecovery` keeps it, the TTL attribute, and
 * deletion protection with RETAIN unless a test stack opts out.
 */
export class HooklineStorage extends Construct {
  readonly tables: Readonly<Record<TableKey, dynamodb.Table>>;

  constructor(scope: Construct, id: string, props: HooklineStorageProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const deletionProtection = props.deletionProtection ?? removalPolicy !== RemovalPolicy.DESTROY;
    const recovery = props.pointInTimeRecovery ?? DEFAULT_POINT_IN_TIME_RECOVERY;

    const tables = {} as Record<TableKey, dynamodb.Table>;
    for (const key of Object.keys(TABLES) as TableKey[]) {
      const def = TABLES[key];
      const table = new dynamodb.Table(this, pascal(key), {
        partitionKey: attribute(def.partitionKey),
        sortKey: def.sortKey ? attribute(def.sortKey) : undefined,
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: {
          pointInTimeRecoveryEnabled: recovery === 'all' || (recovery === 'configuration' && !def.traffic),
        },
        timeToLiveAttribute: def.ttlAttribute,
        ...(def.stream ? { stream: dynamodb.StreamViewType[def.stream] } : {}),
        deletionProtection,
        removalPolicy,
      });
      for (const index of def.indexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
          projectionType: PROJECTIONS[index.projection],
          ...(index.nonKeyAttributes ? { nonKeyAttributes: [...index.nonKeyAttributes] } : {}),
        });
      }
      markTopology(table, `table/${key}`);
      tables[key] = table;
    }
    this.tables = tables;
  }

  /** Table env vars (SUBSCRIPTIONS_TABLE, ...) mapped to the deployed table names. */
  environmentValues(): EnvironmentValues {
    return Object.fromEntries(
      (Object.keys(TABLES) as TableKey[]).map((key) => [TABLES[key].envVar, this.tables[key].tableName]),
    );
  }

  /** Grants data-plane access (items and indexes, never table management) per `grants`. */
  grant(grantee: iam.IGrantable, grants: TableGrants): void {
    for (const [key, access] of Object.entries(grants) as [TableKey, TableAccess][]) {
      const table = this.tables[key];
      if (access === 'read') table.grantReadData(grantee);
      else if (access === 'write') table.grantWriteData(grantee);
      else table.grantReadWriteData(grantee);
      const principal = grantee.grantPrincipal;
      if (TABLES[key].indexes.length > 0 && Construct.isConstruct(principal)) {
        const logicalId = Stack.of(table).getLogicalId(table.node.defaultChild as dynamodb.CfnTable);
        acknowledgeNag(principal, [
          {
            id: 'AwsSolutions-IAM5',
            reason: `The grant covers the GSIs of the ${key} table only (<table ARN>/index/*): all of them are Hookline's own, defined in topology.ts, and the ARN cannot reach another table.`,
            findings: [`Resource::<${logicalId}.Arn>/index/*`],
          },
        ]);
      }
    }
  }
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

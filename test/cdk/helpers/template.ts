import assert from 'node:assert/strict';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { type FunctionKey, TABLES, type TableKey } from '../../../lambdas/config/topology.ts';
import { findTopologyResource, type TemplateJson } from '../../../lib/topology-metadata.ts';

export interface Statement {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: string | string[];
  readonly Resource?: unknown;
  readonly Principal?: unknown;
  readonly Condition?: unknown;
}

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: Statement): unknown[] =>
  s.Resource === undefined ? [] : Array.isArray(s.Resource) ? s.Resource : [s.Resource];

/** Every identity-based policy statement attached to the role of `fn`. */
export function statementsOf(json: TemplateJson, fn: FunctionKey): Statement[] {
  const { properties } = findTopologyResource(json, `function/${fn}`);
  const roleId = (properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(json.Resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        ((r.Properties?.Roles ?? []) as { Ref: string }[]).some((ref) => ref.Ref === roleId),
    )
    .flatMap((r) => (r.Properties!.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** Logical ids a resource entry names via Ref, Fn::GetAtt or inside Fn::Join. */
export function referencedIds(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  const obj = value as Record<string, unknown>;
  if (typeof obj.Ref === 'string') return [obj.Ref];
  if (Array.isArray(obj['Fn::GetAtt'])) return [obj['Fn::GetAtt'][0] as string];
  return Object.values(obj).flatMap(referencedIds);
}

/** Actions `fn` is allowed on the resource with `logicalId` (its ARN, or anything under it). */
export function allowedActionsOn(json: TemplateJson, fn: FunctionKey, logicalId: string): Set<string> {
  const actions = new Set<string>();
  for (const s of statementsOf(json, fn)) {
    if (s.Effect !== 'Allow') continue;
    if (resourcesOf(s).some((r) => referencedIds(r).includes(logicalId))) actionsOf(s).forEach((a) => actions.add(a));
  }
  return actions;
}

export const ref = (logicalId: string) => ({ Ref: logicalId });
export const arn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });

/**
 * A table keyed on one string attribute alone, on demand, recoverable and protected, with no
 * index or TTL: the shape of the small control tables (the event-type catalog, the keyring).
 */
export function assertPlainKeyTable(template: Template, json: TemplateJson, key: TableKey): void {
  const attribute = TABLES[key].partitionKey.name;
  const table = findTopologyResource(json, `table/${key}`);
  assert.deepEqual(table.properties.KeySchema, [{ AttributeName: attribute, KeyType: 'HASH' }], key);
  template.hasResource('AWS::DynamoDB::Table', {
    Properties: Match.objectEquals({
      KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: attribute, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    }),
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
  });
  assert.equal(table.properties.GlobalSecondaryIndexes, undefined, key);
  assert.equal(table.properties.TimeToLiveSpecification, undefined, key);
}

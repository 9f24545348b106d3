import { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { BucketKey, FunctionKey, QueueKey, TableKey } from '../lambdas/config/topology.ts';

/**
 * CloudFormation metadata key that ties a synthesized resource to its entry in
 * `lambdas/config/topology.ts`. The parity test (and anything else reading the template,
 * such as a local runtime that wants to boot from `cdk.out`) finds resources by it rather
 * than by logical ids, which change whenever a construct is renamed.
 */
export const TOPOLOGY_METADATA_KEY = 'hookline:topology';

export type TopologyId =
  | `table/${TableKey}`
  | `bucket/${BucketKey}`
  | `queue/${QueueKey}`
  | `redrive/${QueueKey}`
  | `function/${FunctionKey}`
  | `event-source/${QueueKey}`
  | `stream-source/${TableKey}`
  | `schedule/${FunctionKey}/${number}`;

/** Stamps `id` on the construct's CloudFormation resource (its default child, or itself). */
export function markTopology(scope: IConstruct, id: TopologyId): void {
  const resource = scope instanceof CfnResource ? scope : scope.node.defaultChild;
  if (!(resource instanceof CfnResource)) {
    throw new Error(`${scope.node.path} has no CloudFormation resource to mark as ${id}`);
  }
  resource.addMetadata(TOPOLOGY_METADATA_KEY, id);
}

/** A synthesized template, as `Template.toJSON()` returns it. */
export interface TemplateJson {
  readonly Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
}

/** The logical id and resource carrying `id`; throws unless exactly one does. */
export function findTopologyResource(template: TemplateJson, id: TopologyId) {
  const hits = Object.entries(template.Resources).filter(([, r]) => r.Metadata?.[TOPOLOGY_METADATA_KEY] === id);
  if (hits.length !== 1) throw new Error(`expected exactly one resource marked ${id}, found ${hits.length}`);
  const [logicalId, resource] = hits[0]!;
  return { logicalId, resource, properties: resource.Properties ?? {} };
}

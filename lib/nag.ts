import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks, type NagPack } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * The cdk-nag rule packs Hookline is held to. Every acknowledgement is also written into
 * the template's Metadata (`cdk_nag.rules_to_suppress`) as an audit trail.
 */
export function createNagPacks(app: IConstruct): NagPack[] {
  return [
    new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }),
  ];
}

/** Registers the packs as validation plugins: `cdk synth` then fails on any unacknowledged finding. */
export function applyNagChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(...createNagPacks(app));
}

/** One acknowledged cdk-nag rule, with the reason a reviewer reads. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
  /** Acknowledge only these findings of a multi-finding rule (e.g. `Resource::*` of AwsSolutions-IAM5). */
  readonly findings?: readonly string[];
}

/**
 * Acknowledges rules on `scope` and everything below it (cdk-nag checks a resource's
 * ancestors for acknowledgements). Call it right next to the construct it is about.
 */
export function acknowledgeNag(scope: IConstruct, acknowledgements: readonly NagAcknowledgement[]): void {
  for (const { id, reason, findings } of acknowledgements) {
    const ids = findings ? findings.map((finding) => `${id}[${finding}]`) : [id];
    Validations.of(scope).acknowledge(...ids.map((ruleId) => ({ id: ruleId, reason })));
  }
}

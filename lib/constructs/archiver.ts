import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ARCHIVE_PREFIX } from '../../lambdas/domain/archive.ts';
import { acknowledgeNag } from '../nag.ts';
import type { ArchiveBucket } from './archive.ts';
import type { FunctionConstructProps } from './function-options.ts';
import { functionPropsFrom, HooklineFunction } from './hookline-function.ts';

/** `environmentValues` must carry ARCHIVE_BUCKET and the retention settings. */
export interface DeliveryArchiverProps extends FunctionConstructProps {
  readonly archive: ArchiveBucket;
}

/**
 * The `archiver` function: daily, moves terminal deliveries past their retention to the
 * archive bucket (gzip NDJSON, verified by reading back before rows are deleted) and restores
 * archived ranges on request. Reads, writes and deletes objects in the archive bucket only.
 */
export class DeliveryArchiver extends Construct {
  readonly handler: HooklineFunction;

  constructor(scope: Construct, id: string, props: DeliveryArchiverProps) {
    super(scope, id);
    this.handler = new HooklineFunction(this, 'Archiver', {
      ...functionPropsFrom('archiver', props),
      noAsyncFailureDestination:
        'A scheduled run carries no data: the work it stands for is recomputed from DynamoDB by the next run, and unfinished batches are recorded in the manifest table and finished first. Failures show in the Lambda Errors metric.',
    });
    const fn = this.handler.function;
    // Put, read back and delete (an emptied batch) objects under deliveries/, and list that
    // prefix (restore): named actions, no wildcards, nothing outside the archive prefix.
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
        resources: [props.archive.bucket.arnForObjects(`${ARCHIVE_PREFIX}*`)],
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.archive.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${ARCHIVE_PREFIX}*`] } },
      }),
    );
    const bucketId = Stack.of(this).getLogicalId(props.archive.bucket.node.defaultChild as never);
    acknowledgeNag(this.handler.role, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'The archiver writes one object per batch under keys derived at run time (deliveries/dt=…/subscription=…/part-<hash>.ndjson.gz) and reads each back to verify it: the object actions are limited to the deliveries/ prefix of Hookline’s own archive bucket.',
        findings: [`Resource::<${bucketId}.Arn>/${ARCHIVE_PREFIX}*`],
      },
    ]);
    // The daily run is idempotent and resumable (unfinished batches are finished first), so
    // a failed run is simply repeated: twice by EventBridge's own retries, then by the next day's run.
    fn.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(6) });
  }

  /** Lets `grantee` (an operator role) run an archive pass or a restore on demand. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.handler.function.grantInvoke(grantee);
  }
}

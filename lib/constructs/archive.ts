import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError } from '../errors.ts';
import { markTopology } from '../topology-metadata.ts';
import { ARCHIVE_LIFECYCLE_DEFAULTS } from '../../lambdas/config/topology.ts';

export interface ArchiveBucketProps {
  /** Days after upload an archive object moves to S3 Glacier Instant Retrieval. @default 30 */
  readonly coldAfterDays?: number;
  /** Days after upload an archive object is deleted. @default 365 */
  readonly expireAfterDays?: number;
  /** Days the server access logs of the archive bucket are kept. @default 90 */
  readonly accessLogRetentionDays?: number;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The archive of terminal deliveries (batched gzip NDJSON), with a separate bucket for its
 * server access logs. Both: SSE-S3, public access blocked, TLS-only, bucket-owner-enforced.
 * The archive is versioned and tiers to Glacier Instant Retrieval (still readable in
 * milliseconds for an audit) before it expires.
 */
export class ArchiveBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: ArchiveBucketProps = {}) {
    super(scope, id);
    const coldAfterDays = props.coldAfterDays ?? ARCHIVE_LIFECYCLE_DEFAULTS.coldAfterDays;
    const expireAfterDays = props.expireAfterDays ?? ARCHIVE_LIFECYCLE_DEFAULTS.expireAfterDays;
    const accessLogRetentionDays = props.accessLogRetentionDays ?? ARCHIVE_LIFECYCLE_DEFAULTS.accessLogRetentionDays;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    for (const [name, value] of Object.entries({ coldAfterDays, expireAfterDays, accessLogRetentionDays })) {
      if (!Number.isInteger(value) || value < 1)
        throw new InvalidPropError(name, `must be a positive whole number of days, got ${value}`);
    }
    if (expireAfterDays <= coldAfterDays) {
      throw new InvalidPropError(
        'expireAfterDays',
        `(${expireAfterDays}) must be later than coldAfterDays (${coldAfterDays})`,
      );
    }

    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED, // the only encryption S3 server access logging can write to
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(accessLogRetentionDays) }],
    });
    acknowledgeNag(this.accessLogsBucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'This is the server access log bucket of the archive; logging it into itself or a third bucket would only log the log delivery.',
      },
    ]);

    this.bucket = new s3.Bucket(this, 'Archive', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: true,
      removalPolicy,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'archive/',
      lifecycleRules: [
        {
          id: 'tier-then-expire',
          transitions: [
            { storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL, transitionAfter: Duration.days(coldAfterDays) },
          ],
          expiration: Duration.days(expireAfterDays),
          // Versioning guards against an accidental overwrite; old versions need not outlive that.
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
        { id: 'remove-expired-delete-markers', expiredObjectDeleteMarker: true },
      ],
    });
    markTopology(this.bucket, 'bucket/archive');
  }

  /** Lets `grantee` write archive objects (the archiver). */
  grantWrite(grantee: iam.IGrantable): iam.Grant {
    return this.bucket.grantPut(grantee);
  }

  /** Lets `grantee` read archive objects (audits, restores). */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.bucket.grantRead(grantee);
  }
}

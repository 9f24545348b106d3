import { CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { FunctionKey } from '../lambdas/config/topology.ts';
import { WebhookDelivery, type WebhookDeliveryProps } from './webhook-delivery.ts';

export interface HooklineStackProps extends StackProps {
  /** Everything about the deployment itself; see WebhookDeliveryProps for the defaults. */
  readonly delivery?: WebhookDeliveryProps;
}

/** The deployable Hookline stack: one WebhookDelivery and the outputs operators need. */
export class HooklineStack extends Stack {
  readonly delivery: WebhookDelivery;

  constructor(scope: Construct, id: string, props: HooklineStackProps = {}) {
    super(scope, id, props);
    this.delivery = new WebhookDelivery(this, 'Hookline', props.delivery);

    new CfnOutput(this, 'ApiUrl', {
      value: this.delivery.apiUrl,
      description: 'Base URL of the API, ending in / (append v1/... or health); the stage root for apiType rest',
    });
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.delivery.consoleUrl,
      description:
        'The web dashboard: operator console (enter the admin key) and customer portal (links from POST /v1/tenants/{tenantId}/portal-sessions)',
    });
    new CfnOutput(this, 'IngestQueueUrl', {
      value: this.delivery.ingestQueue.queueUrl,
      description: 'Producers SendMessage events here',
    });
    new CfnOutput(this, 'IngestQueueArn', {
      value: this.delivery.ingestQueue.queueArn,
      description: 'The ingest queue, for producer IAM policies',
    });
    new CfnOutput(this, 'ProducerPolicyArn', {
      value: this.delivery.producerPolicy.managedPolicyArn,
      description: 'Managed policy a producer role attaches to publish events and nothing else',
    });
    new CfnOutput(this, 'DashboardName', {
      value: this.delivery.dashboard.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the whole pipeline',
    });
    if (this.delivery.staticEgress) {
      new CfnOutput(this, 'EgressIps', {
        value: Fn.join(',', [...this.delivery.staticEgress.egressIps]),
        description: 'Source addresses of every webhook (allow-list these at receivers)',
      });
    }
    new CfnOutput(this, 'ArchiveBucketName', {
      value: this.delivery.archive.bucket.bucketName,
      description: 'S3 bucket holding archived deliveries (deliveries/dt=YYYY-MM-DD/subscription=…/part-….ndjson.gz)',
    });
    new CfnOutput(this, 'OnCallTopicArn', {
      value: this.delivery.topic.topicArn,
      description: 'SNS topic every alarm notifies',
    });
    if (this.delivery.api.adminKeySecret) {
      new CfnOutput(this, 'AdminKeySecretArn', {
        value: this.delivery.api.adminKeySecret.secretArn,
        description: 'Secrets Manager secret holding the admin bearer key (the ARN, not the key)',
      });
    }
    for (const [key, fn] of Object.entries(this.delivery.functions) as [
      FunctionKey,
      NonNullable<WebhookDelivery['functions'][FunctionKey]>,
    ][]) {
      new CfnOutput(this, `${key.charAt(0).toUpperCase()}${key.slice(1)}FunctionName`, {
        value: fn.functionName,
        description: `Lambda function: ${key}`,
      });
    }
  }
}

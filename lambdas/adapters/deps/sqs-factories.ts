import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeliveryQueue } from '../sqs-delivery-queue.ts';
import type { Factories } from './factory.ts';

export const SQS_FACTORIES: Factories<'queue' | 'slowLane'> = {
  queue: (v, s) => new SqsDeliveryQueue(s.options.clients?.sqs ?? new SQSClient({}), v.DELIVERY_QUEUE_URL),
  slowLane: (v, s) => new SqsDeliveryQueue(s.options.clients?.sqs ?? new SQSClient({}), v.SLOW_DELIVERY_QUEUE_URL),
};

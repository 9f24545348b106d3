import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambdaBase from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EVENT_SOURCES, STREAM_SOURCES, type FunctionKey, type TableKey } from '../../lambdas/config/topology.ts';
import { acknowledgeNag } from '../nag.ts';
import { InvalidPropError, TopologyError } from '../errors.ts';
import { markTopology } from '../topology-metadata.ts';
import { checkEventSourceReservation } from './concurrency.ts';
import type { HooklineQueue } from './queues.ts';

/**
 * Connects `queue` to `fn` with the EVENT_SOURCES settings for that pair: batch size,
 * batching window, partial batch responses (`ReportBatchItemFailures`) and the
 * MaximumConcurrency cap. `maxConcurrency` overrides the topology's cap; a reserved concurrency
 * on `fn` below it, plus `otherMappings` (the caps of the function's other event sources, which
 * draw on the same reservation), is refused. The event source grants the function
 * receive/delete/change-visibility on the queue.
 */
export function connectQueue(
  fn: lambda.Function,
  functionKey: FunctionKey,
  queue: HooklineQueue,
  maxConcurrency?: number,
  otherMappings = 0,
): { readonly source: SqsEventSource; readonly maxConcurrency: number } {
  const def = EVENT_SOURCES.find((s) => s.queue === queue.queueKey && s.function === functionKey);
  if (!def)
    throw new TopologyError(`EVENT_SOURCES has no entry for queue '${queue.queueKey}' -> function '${functionKey}'`);
  const concurrency = maxConcurrency ?? def.maxConcurrency;
  // Lambda's ScalingConfig bounds.
  if (!Number.isInteger(concurrency) || concurrency < 2 || concurrency > 1000) {
    throw new InvalidPropError(
      `${functionKey} maxConcurrency`,
      `must be an integer from 2 to 1000, got ${concurrency}`,
    );
  }
  checkEventSourceReservation(
    functionKey,
    (fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions,
    concurrency + otherMappings,
  );
  const source = new SqsEventSource(queue.queue, {
    batchSize: def.batchSize,
    maxBatchingWindow: Duration.seconds(def.maxBatchingWindowSeconds),
    reportBatchItemFailures: def.reportBatchItemFailures,
    maxConcurrency: concurrency,
  });
  fn.addEventSource(source);
  const mapping = findMapping(fn);
  markTopology(mapping, `event-source/${queue.queueKey}`);
  acknowledgeNag(mapping, [
    {
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "SQS event source mappings do not support on-failure destinations; failed messages go to the queue's own redrive queue (RedrivePolicy with maxReceiveCount), which is alarmed.",
    },
  ]);
  return { source, maxConcurrency: concurrency };
}

/** The event source mapping the SqsEventSource just added (the newest one on the function). */
function findMapping(fn: lambda.Function) {
  const mappings = fn.node.children.filter((c) => c.node.id.startsWith('SqsEventSource:'));
  const last = mappings.at(-1);
  if (!last) throw new Error(`no event source mapping found on ${fn.node.path}`);
  return last;
}

/**
 * Connects `table`'s stream to `fn` with the STREAM_SOURCES settings for that pair: batch size and
 * window, only the records of its kind (a filter, so the others cost no invocation), a failing
 * batch halved and tried again up to its retry attempts, from the oldest record the stream still
 * holds. The event source grants the function the stream's reads.
 */
export function connectStream(
  fn: lambda.Function,
  functionKey: FunctionKey,
  tableKey: TableKey,
  table: dynamodb.ITable,
): DynamoEventSource {
  const def = STREAM_SOURCES.find((s) => s.table === tableKey && s.function === functionKey);
  if (!def) throw new TopologyError(`STREAM_SOURCES has no entry for table '${tableKey}' -> function '${functionKey}'`);
  const source = new DynamoEventSource(table, {
    startingPosition: lambdaBase.StartingPosition.TRIM_HORIZON,
    batchSize: def.batchSize,
    maxBatchingWindow: Duration.seconds(def.maxBatchingWindowSeconds),
    bisectBatchOnError: def.bisectBatchOnError,
    retryAttempts: def.retryAttempts,
    filters: [lambdaBase.FilterCriteria.filter({ eventName: lambdaBase.FilterRule.isEqual(def.eventName) })],
  });
  fn.addEventSource(source);
  const mapping = fn.node.children.filter((c) => c instanceof lambdaBase.EventSourceMapping).at(-1)!;
  markTopology(mapping, `stream-source/${tableKey}`);
  acknowledgeNag(mapping, [
    {
      id: 'Serverless-LambdaEventSourceMappingDestination',
      reason:
        "A record given up after its retries is not lost: the sweeper's check of its publish's manifest sends the event's deliveries after the grace, and the function's failures are logged as errors.",
    },
  ]);
  return source;
}

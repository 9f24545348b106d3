import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EVENT_SOURCES, type FunctionKey } from '../../lambdas/config/topology.ts';
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

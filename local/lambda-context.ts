import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionKey } from '#config/topology.ts';

/** A Lambda context as the service passes it, so Powertools and middy behave as on AWS. */
export function lambdaContext(fn: FunctionKey): Context {
  const def = FUNCTIONS[fn];
  const deadline = Date.now() + def.timeoutSeconds * 1000;
  const name = `hookline-local-${fn}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    memoryLimitInMB: String(def.memorySize),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export type Invoke<E, R> = (event: E, context: Context) => Promise<R>;

import type { MiddlewareStack } from '@smithy/types';

/** What a simulated service answers to one SDK call: the command's name and its input as the caller wrote it. */
export type Answer = (commandName: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * Makes a real SDK client answer every call in memory. The middleware sits first in the
 * initialize step and never calls on, so no request is serialized, signed or sent: the adapter
 * above runs exactly as in production, and the simulated service sees the command's own input.
 */
export function answerInMemory<C extends { middlewareStack: MiddlewareStack<any, any> }>(client: C, answer: Answer): C {
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const output = await answer(String(context.commandName), args.input as Record<string, unknown>);
      return { output: { ...output, $metadata: { httpStatusCode: 200 } }, response: {} };
    },
    { step: 'initialize', priority: 'high', name: 'scaleModelAnswer' },
  );
  return client;
}

/** An error as the SDK raises a service's refusal: its name is the exception's. */
export function serviceError(name: string, message: string, status = 400): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
}

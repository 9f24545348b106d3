import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { ArchiverInvoker, ArchiverPayload } from '#ports/archiver-invoker.ts';

/** The archiver function invoked synchronously (RequestResponse) by its name (ARCHIVER_FUNCTION_NAME). */
export class LambdaArchiverInvoker implements ArchiverInvoker {
  constructor(
    private readonly client: LambdaClient,
    private readonly functionName: string,
  ) {}

  async invoke(payload: ArchiverPayload): Promise<unknown> {
    const out = await this.client.send(
      new InvokeCommand({ FunctionName: this.functionName, Payload: Buffer.from(JSON.stringify(payload)) }),
    );
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
    const result: unknown = text ? JSON.parse(text) : undefined;
    // A function error (a crash, a timeout) is not a refusal: it fails this request as a 500 and shows in the archiver's Errors metric.
    if (out.FunctionError)
      throw new Error(
        `the archiver function failed: ${(result as { errorMessage?: string } | undefined)?.errorMessage ?? text}`,
      );
    return result;
  }
}

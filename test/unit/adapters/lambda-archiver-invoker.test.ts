import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaArchiverInvoker } from '#adapters/lambda-archiver-invoker.ts';

/** A Lambda client that keeps the commands it is sent and answers `out`. */
function fakeLambda(out: { Payload?: Uint8Array; FunctionError?: string }) {
  const sent: InvokeCommand[] = [];
  return { sent, client: { send: async (c: InvokeCommand) => (sent.push(c), out) } as unknown as LambdaClient };
}
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

describe('LambdaArchiverInvoker', () => {
  it('invokes the named function synchronously with the payload and answers what it returned', async () => {
    const { sent, client } = fakeLambda({ Payload: bytes({ kind: 'done', objects: 0 }) });
    const result = await new LambdaArchiverInvoker(client, 'hookline-archiver').invoke({ action: 'archive', maxObjects: 3 });
    assert.deepEqual(result, { kind: 'done', objects: 0 });
    assert.equal(sent[0]!.input.FunctionName, 'hookline-archiver');
    // RequestResponse is the default: no InvocationType means the caller waits for the report.
    assert.equal(sent[0]!.input.InvocationType, undefined);
    assert.deepEqual(JSON.parse(Buffer.from(sent[0]!.input.Payload as Uint8Array).toString('utf8')), { action: 'archive', maxObjects: 3 });
  });

  it("passes a refusal ({status, error}) on as the function's answer", async () => {
    const refusal = { status: 400, error: { code: 'invalid_request', message: 'to: …' } };
    const { client } = fakeLambda({ Payload: bytes(refusal) });
    assert.deepEqual(await new LambdaArchiverInvoker(client, 'a').invoke({ action: 'restore', from: '2026-11-01', to: '2026-11-01' }), refusal);
  });

  it('throws on a function error (a crash or timeout is not a refusal)', async () => {
    const { client } = fakeLambda({ FunctionError: 'Unhandled', Payload: bytes({ errorMessage: 'Task timed out' }) });
    await assert.rejects(new LambdaArchiverInvoker(client, 'a').invoke({ action: 'archive' }), /archiver function failed: Task timed out/);
  });
});

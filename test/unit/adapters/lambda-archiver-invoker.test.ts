import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { buildDeps } from '#adapters/function-deps.ts';
import { LambdaArchiverInvoker } from '#adapters/lambda-archiver-invoker.ts';
import { ENV_DEFAULTS, FUNCTIONS, type EnvName, type FunctionKey } from '#config/topology.ts';
import { noMetrics } from '#ports/metrics.ts';

/** A Lambda client that keeps the commands it is sent and answers `out`. */
function fakeLambda(out: { Payload?: Uint8Array; FunctionError?: string }) {
  const sent: InvokeCommand[] = [];
  return { sent, client: { send: async (c: InvokeCommand) => (sent.push(c), out) } as unknown as LambdaClient };
}
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const FULL_ENV = Object.fromEntries(
  Object.keys(ENV_DEFAULTS).map((name) => [name, ENV_DEFAULTS[name as EnvName] ?? `value-of-${name}`]),
);

describe('LambdaArchiverInvoker', () => {
  it('invokes the named function synchronously with the payload and answers what it returned', async () => {
    const { sent, client } = fakeLambda({ Payload: bytes({ kind: 'done', objects: 0 }) });
    const result = await new LambdaArchiverInvoker(client, 'hookline-archiver').invoke({
      action: 'archive',
      maxObjects: 3,
    });
    assert.deepEqual(result, { kind: 'done', objects: 0 });
    assert.equal(sent[0]!.input.FunctionName, 'hookline-archiver');
    // RequestResponse is the default: no InvocationType means the caller waits for the report.
    assert.equal(sent[0]!.input.InvocationType, undefined);
    assert.deepEqual(JSON.parse(Buffer.from(sent[0]!.input.Payload as Uint8Array).toString('utf8')), {
      action: 'archive',
      maxObjects: 3,
    });
  });

  it("passes a refusal ({status, error}) on as the function's answer", async () => {
    const refusal = { status: 400, error: { code: 'invalid_request', message: 'to: …' } };
    const { client } = fakeLambda({ Payload: bytes(refusal) });
    assert.deepEqual(
      await new LambdaArchiverInvoker(client, 'a').invoke({ action: 'restore', from: '2026-11-01', to: '2026-11-01' }),
      refusal,
    );
  });

  it('throws on a function error (a crash or timeout is not a refusal)', async () => {
    const { client } = fakeLambda({ FunctionError: 'Unhandled', Payload: bytes({ errorMessage: 'Task timed out' }) });
    await assert.rejects(
      new LambdaArchiverInvoker(client, 'a').invoke({ action: 'archive' }),
      /archiver function failed: Task timed out/,
    );
  });
});

describe('the archiver dependency (LAMBDA_FACTORIES)', () => {
  it('only the api has it: the one function granted lambda:InvokeFunction on the archiver', () => {
    for (const fn of Object.keys(FUNCTIONS) as FunctionKey[])
      assert.equal('archiver' in buildDeps(fn, FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES), fn === 'api', fn);
  });

  it('invokes the function ARCHIVER_FUNCTION_NAME names, through the Lambda client it is given', async () => {
    const { sent, client } = fakeLambda({ Payload: bytes({ kind: 'done' }) });
    const deps = buildDeps(
      'api',
      { ...FULL_ENV, ARCHIVER_FUNCTION_NAME: 'stack-archiver' },
      { metrics: noMetrics, clients: { lambda: client } },
      ALL_FACTORIES,
    );
    assert.deepEqual(await deps.archiver.invoke({ action: 'archive' }), { kind: 'done' });
    assert.equal(sent[0]!.input.FunctionName, 'stack-archiver');
  });

  it("by default makes one attempt: a retried slice could outlast the api's 29 s", async () => {
    const deps = buildDeps('api', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    assert.ok(deps.archiver instanceof LambdaArchiverInvoker);
    const client = (deps.archiver as unknown as { client: LambdaClient }).client;
    assert.equal(await (client.config.maxAttempts as () => Promise<number>)(), 1);
  });

  it('a function without ARCHIVER_FUNCTION_NAME cannot reach it (the types say so too)', () => {
    const sweeper = buildDeps('sweeper', FULL_ENV, { metrics: noMetrics }, ALL_FACTORIES);
    // @ts-expect-error the sweeper's environment has no ARCHIVER_FUNCTION_NAME
    assert.equal(sweeper.archiver, undefined);
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NagPack } from 'cdk-nag';
import { FUNCTIONS, type FunctionKey } from '../../../lambdas/config/topology.ts';
import { PROJECT_ROOT } from '../../../lib/constructs/hookline-function.ts';
import { HooklineQueues } from '../../../lib/constructs/queues.ts';
import { HooklineStack } from '../../../lib/hookline-stack.ts';
import { createNagPacks } from '../../../lib/nag.ts';
import type { TemplateJson } from '../../../lib/topology-metadata.ts';
import type { WebhookDeliveryProps } from '../../../lib/webhook-delivery.ts';

/** The feature flags `cdk synth` runs with, so tests see the template the CLI produces. */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

const outdirs: string[] = [];
// Bundled assets are a few MB per synth; leave nothing behind in the temp dir.
process.on('exit', () => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh App with cdk.json's context, writing its assembly to a temp dir removed at exit. */
export function testApp(extraContext: Record<string, unknown> = {}): App {
  const outdir = mkdtempSync(path.join(tmpdir(), 'hookline-cdk-'));
  outdirs.push(outdir);
  return new App({
    outdir,
    context: { ...cdkJsonContext(), 'aws:cdk:enable-asset-metadata': true, ...extraContext },
  });
}

/** A bare stack for testing one construct without bundling any function. */
export function bareStack(id = 'Test'): Stack {
  return new Stack(testApp(), id, { env: TEST_ENV });
}

/** A plain inline Lambda function beside Hookline's queue pairs, on a bare stack: for connecting queues by hand. */
export function queuesAndFunction(functionProps: Partial<lambda.FunctionProps> = {}) {
  const stack = bareStack();
  const queues = new HooklineQueues(stack, 'Queues');
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('export const handler = async () => {}'),
    ...functionProps,
  });
  return { stack, queues, fn };
}

export interface SynthesizedHookline {
  readonly app: App;
  readonly stack: HooklineStack;
  readonly template: Template;
  readonly json: TemplateJson & { Outputs?: Record<string, { Value: unknown }> };
  readonly nagPacks: readonly NagPack[];
  /** The cloud assembly directory (bundled assets live under it). */
  readonly outdir: string;
}

/** Synthesizes the full HooklineStack (bundling every function) with the cdk-nag packs attached. */
export function synthHookline(delivery?: WebhookDeliveryProps, stackName = 'Hookline'): SynthesizedHookline {
  const app = testApp();
  const nagPacks = createNagPacks(app);
  const stack = new HooklineStack(app, stackName, { env: TEST_ENV, delivery });
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as SynthesizedHookline['json'], nagPacks, outdir: app.outdir };
}

let defaultStack: SynthesizedHookline | undefined;
/** The default-props stack, synthesized once per test file (each file runs in its own process). */
export function defaultHookline(): SynthesizedHookline {
  defaultStack ??= synthHookline();
  return defaultStack;
}

/** Resources of one type as [logicalId, resource] pairs. */
export function resourcesOfType(json: TemplateJson, type: string) {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

let gatewayStack: SynthesizedHookline | undefined;
/**
 * The stack with an API Gateway HTTP API in front of the api (`apiType: 'http'`), synthesized once
 * per process: the only default-auth stack with the `authorizer` function, which the default
 * Function URL entry does without.
 */
export function gatewayHookline(): SynthesizedHookline {
  gatewayStack ??= synthHookline({ apiType: 'http' });
  return gatewayStack;
}

/**
 * Each function key with the stack that deploys it: the default stack's functions, and the
 * authorizer from the gateway stack. Tests that check every FUNCTIONS entry walk this.
 */
export function everyDeployedFunction(): readonly { readonly key: FunctionKey; readonly synth: SynthesizedHookline }[] {
  const synth = defaultHookline();
  const deployed = Object.keys(synth.stack.delivery.functions) as FunctionKey[];
  return (Object.keys(FUNCTIONS) as FunctionKey[]).map((key) => ({
    key,
    synth: deployed.includes(key) ? synth : gatewayHookline(),
  }));
}

#!/usr/bin/env -S npx tsx
import { App } from 'aws-cdk-lib';
import { holdBundlingLines } from '../lib/bundling-output.ts';
import { CONTEXT_KEYS, settingsFromContext, type ContextKey } from '../lib/context.ts';
import { HooklineStack } from '../lib/hookline-stack.ts';
import { applyNagChecks } from '../lib/nag.ts';

const held = holdBundlingLines();
process.on('exit', (code) => {
  held.restore();
  if (code !== 0) for (const line of held.lines) process.stderr.write(line);
});

const app = new App();
const context = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, app.node.tryGetContext(key)])) as Record<
  ContextKey,
  unknown
>;
const settings = settingsFromContext((key) => context[key]);

new HooklineStack(app, settings.stackName, {
  description: 'Hookline: outbound webhook delivery (sign, deliver, retry, dead-letter, replay)',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  delivery: settings.delivery,
});
applyNagChecks(app);

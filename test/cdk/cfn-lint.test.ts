import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { RemovalPolicy } from 'aws-cdk-lib';
import { defaultHookline, gatewayHookline, synthHookline, type SynthesizedHookline } from './helpers/synth.ts';

const cfnLintVersion = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
const haveCfnLint = !cfnLintVersion.error && cfnLintVersion.status === 0;

/**
 * W3005 ("dependency already enforced by a GetAtt"): aws-lambda's Function adds an explicit
 * DependsOn on its role next to the Role GetAtt. Redundant, not wrong, and not ours to change.
 * W3010 ("avoid hardcoding availability zones"): an environment-specific CDK stack writes the
 * zones it looked up for its account and region (pinned in cdk.context.json) into the subnets
 * of the static-egress VPC. The template is built for that one region, so that is by design.
 */
const IGNORED_CHECKS = ['W3005', 'W3010'];

interface LintMatch {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Location: { readonly Path: (string | number)[] };
}

function lint(synth: SynthesizedHookline) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookline-cfn-lint-'));
  const file = path.join(dir, 'template.json');
  writeFileSync(file, JSON.stringify(synth.json, null, 1));
  const run = spawnSync('cfn-lint', ['--format', 'json', '--ignore-checks', ...IGNORED_CHECKS, '--', file], {
    encoding: 'utf8',
    timeout: 90_000,
  });
  rmSync(dir, { recursive: true, force: true });
  const matches = JSON.parse(run.stdout || '[]') as LintMatch[];
  return { status: run.status, matches, stderr: run.stderr };
}

describe('cfn-lint over the synthesized template', { skip: haveCfnLint ? false : 'cfn-lint is not on PATH' }, () => {
  const variants: [string, () => SynthesizedHookline][] = [
    ['default props', defaultHookline],
    [
      'REST API, IAM auth, email, low-volume preset, DESTROY, static egress',
      () =>
        synthHookline(
          {
            apiType: 'rest',
            apiAuth: 'iam',
            onCallEmail: 'oncall@example.com',
            deadLetterAlarm: { preset: 'low-volume' },
            removalPolicy: RemovalPolicy.DESTROY,
            staticEgress: { natGateways: 1 },
          },
          'HooklineLintVariant',
        ),
    ],
    ['HTTP API, bearer auth', gatewayHookline],
    ['HTTP API, IAM auth', () => synthHookline({ apiType: 'http', apiAuth: 'iam' }, 'HooklineLintHttpIam')],
  ];
  for (const [name, synth] of variants) {
    test(`${name}: exit code 0, no errors, no warnings (${cfnLintVersion.stdout?.trim()})`, () => {
      const { status, matches, stderr } = lint(synth());
      const described = matches.map((m) => `${m.Level} ${m.Rule.Id} at ${m.Location.Path.join('/')}: ${m.Message}`);
      assert.deepEqual(described, []);
      assert.equal(status, 0, stderr);
    });
  }
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLocalStack, type LocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'hookline-cli-'));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  json(): any;
}

/** Runs `hookline …` as a separate process (what `npx hookline` runs), without blocking the in-process runtime. */
function hookline(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'cli/hookline.mjs'), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        HOOKLINE_DATA_DIR: dataDir,
        HOOKLINE_CLI_POLL_MS: '200',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

describe('the hookline CLI against the local runtime', () => {
  let stack: LocalStack;
  let subId: string;
  const failedIds: string[] = [];
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();

  before(async () => {
    stack = await startLocalStack({
      dataDir,
      env: {
        HOOKLINE_RETENTION_DELIVERED_DAYS: '0',
        HOOKLINE_RETENTION_DEAD_LETTER_DAYS: '0',
        HOOKLINE_ARCHIVE_DELIVERED: '1',
        HOOKLINE_ARCHIVE_BATCH_SIZE: '2',
        HOOKLINE_REPLAY_WINDOW_SECONDS: '1',
      },
    });
  });
  after(async () => {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('--help works on every command and subcommand; usage errors exit 2', async () => {
    const paths = [
      [],
      ['subscriptions'],
      ['subscriptions', 'list'],
      ['subscriptions', 'create'],
      ['subscriptions', 'pause'],
      ['subscriptions', 'resume'],
      ['dead-letters', 'list'],
      ['deliveries', 'show'],
      ['replay'],
      ['replay-bulk'],
      ['replays', 'list'],
      ['replays', 'show'],
      ['archive', 'run'],
      ['restore'],
      ['tenants', 'create-key'],
      ['publish'],
      ['env'],
      ['subscriptions', 'get'],
      ['subscriptions', 'update'],
      ['subscriptions', 'delete'],
      ['subscriptions', 'rotate-secret'],
      ['subscriptions', 'test'],
      ['deliveries', 'list'],
      ['events'],
      ['events', 'list'],
      ['events', 'show'],
      ['completion'],
      ['portal-link'],
      ['event-types'],
      ['event-types', 'list'],
      ['event-types', 'get'],
      ['event-types', 'put'],
      ['event-types', 'delete'],
    ];
    const runs = await Promise.all(paths.map((p) => hookline([...p, '--help'])));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 0, `${paths[i]!.join(' ')} --help`);
      assert.match(run.stdout, new RegExp(`Usage: hookline${paths[i]!.length ? ` ${paths[i]!.join(' ')}` : ''} `));
    }
    assert.match(runs[0]!.stdout, /Exit codes: 0 ok/);
    for (const variable of [
      'HOOKLINE_DATA_DIR',
      'HOOKLINE_API_URL',
      'HOOKLINE_ADMIN_KEY',
      'HOOKLINE_INGEST_QUEUE_URL',
      'HOOKLINE_SQS_ENDPOINT',
      'HOOKLINE_LAMBDA_TOKEN',
      'HOOKLINE_STACK',
      'AWS_REGION',
    ]) {
      assert.ok(runs[0]!.stdout.includes(variable), `--help names ${variable}`);
    }
    for (const args of [
      ['replay-bulk', '--to', '2024-01-01'],
      ['subscriptions', 'list', '--limit', '0'],
      ['no-such-command'],
      ['replay'],
      ['replay-bulk', '--from', 'a', '--to', 'b', '--window', '-3'],
    ]) {
      const run = await hookline(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    }
  });

  it('subscriptions create, list, pause and resume (human and --json output)', async () => {
    stack.receiver.script('/cli', [], { status: 422 });
    const created = await hookline([
      '--json',
      'subscriptions',
      'create',
      '--url',
      `${stack.receiver.url}/cli`,
      '--event-types',
      'cli.test,cli.other',
      '--tenant',
      'cli-tenant',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const sub = created.json();
    subId = sub.id;
    assert.deepEqual(sub.eventTypes, ['cli.test', 'cli.other']);
    assert.match(sub.secret, /^whsec_/);
    stack.receiver.expectSecret('/cli', sub.secret);

    const human = await hookline(['subscriptions', 'list', '--tenant', 'cli-tenant']);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^ID\s+STATE\s+TENANT/);
    assert.match(human.stdout, new RegExp(`${subId}\\s+active\\s+cli-tenant`));

    const paused = await hookline(['--json', 'subscriptions', 'pause', subId, '--reason', 'cli pause']);
    assert.deepEqual([paused.code, paused.json().state, paused.json().stateReason], [0, 'paused', 'cli pause']);
    const resumed = await hookline(['subscriptions', 'resume', subId]);
    assert.equal(resumed.code, 0);
    assert.match(resumed.stdout, /is active; 0 pending deliveries are due again/);
  });

  it('dead-letters list, deliveries show, replay (exit 3 for an unknown id, 4 for a pending one), retry refusals (exit 4)', async () => {
    for (let i = 0; i < 6; i++)
      failedIds.push(...(await stack.publish('cli.test', { i }, undefined, { tenantId: 'cli-tenant' })).deliveryIds);
    await Promise.all(failedIds.map((id) => stack.waitForState(id, ['failed'])));

    const dl = await hookline(['--json', 'dead-letters', 'list', '--subscription', subId, '--limit', '4', '--all']);
    assert.equal(dl.code, 0);
    assert.deepEqual(
      dl
        .json()
        .items.map((d: any) => d.id)
        .sort(),
      [...failedIds].sort(),
    );
    const dlHuman = await hookline(['dead-letters', 'list', '--subscription', subId, '--limit', '2']);
    assert.match(dlHuman.stdout, /more: --cursor \S+, or --all/);

    const shown = await hookline(['deliveries', 'show', failedIds[0]!]);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, new RegExp(`^${failedIds[0]}  failed  \\(attempts 1\\)`));
    assert.match(shown.stdout, /SEQ\s+TRY\s+STARTED\s+DURATION\s+STATUS/);
    assert.match(shown.stdout, /body\s+\{"id":"evt_/);

    stack.receiver.script('/cli', [], { status: 200 });
    const replayed = await hookline(['--json', 'replay', failedIds[0]!]);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.equal(replayed.json().state, 'pending');
    await stack.waitForState(failedIds[0]!, ['delivered']);
    const finished = await hookline(['retry', failedIds[0]!]);
    assert.equal(finished.code, 4, 'retry: a delivered delivery is replayed instead');
    assert.match(finished.stderr, /is delivered: it waits for no retry; replay it instead/);

    const unknown = await hookline(['replay', 'dlv_unknown0000000000000000']);
    assert.equal(unknown.code, 3);
    assert.match(unknown.stderr, /delivery dlv_unknown0000000000000000 does not exist/);
    const unknownJson = await hookline(['--json', 'replay', 'dlv_unknown0000000000000000']);
    assert.deepEqual(unknownJson.json().error, {
      status: 404,
      code: 'not_found',
      message: 'delivery dlv_unknown0000000000000000 does not exist',
      exitCode: 3,
    });

    await hookline(['subscriptions', 'pause', subId]);
    const pendingId = (await stack.publish('cli.test', { pending: true }, undefined, { tenantId: 'cli-tenant' }))
      .deliveryIds[0]!;
    const conflict = await hookline(['replay', pendingId]);
    assert.equal(conflict.code, 4);
    assert.match(conflict.stderr, /is pending/);
    const notYet = await hookline(['retry', pendingId]);
    assert.equal(notYet.code, 4, 'retry: a delivery of a paused subscription waits for its resume');
    assert.match(notYet.stderr, /is paused; resume it/);
    await hookline(['subscriptions', 'resume', subId]);
    await stack.waitForState(pendingId, ['delivered']);
  });

  it('replay-bulk: a dry run, then the replay with progress on stderr; replays list shows the audit trail', async () => {
    const dry = await hookline([
      '--json',
      '--operator',
      'cli-test',
      'replay-bulk',
      '--from',
      hourAgo,
      '--to',
      new Date(Date.now() + 60_000).toISOString(),
      '--subscription',
      subId,
      '--dry-run',
    ]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual([dry.json().dryRun, dry.json().matched, dry.json().replayed], [true, 5, 0]);

    const run = await hookline([
      '--operator',
      'cli-test',
      'replay-bulk',
      '--from',
      hourAgo.slice(0, 10),
      '--to',
      new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
      '--states',
      'failed,expired',
      '--window',
      '1',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^bulk replay of failed, expired deliveries created/);
    assert.match(
      run.stdout,
      /^replay rpl_\S+ completed: matched 5, replayed 5, skipped 0; re-attempts spread over 1 s/,
    );
    await Promise.all(failedIds.map((id) => stack.waitForState(id, ['delivered'])));

    const list = await hookline(['--json', 'replays', 'list']);
    const mine = list.json().items.filter((r: any) => r.operator === 'cli-test');
    assert.equal(mine.length, 2);
    const show = await hookline(['replays', 'show', mine[0].id]);
    assert.match(show.stdout, /operator cli-test \(admin\)/);

    const bad = await hookline(['replay-bulk', '--from', 'yesterday', '--to', 'today']);
    assert.equal(bad.code, 2, 'the service refuses the range: invalid input');
    assert.match(bad.stderr, /createdFrom/);
  });

  it('archive run shows progress and can be cut short (exit 8) and continued; restore brings a day back', async () => {
    // More terminal deliveries, so the archive takes many 2-delivery objects.
    const more: string[] = [];
    for (let i = 0; i < 60; i += 20)
      more.push(
        ...(
          await Promise.all(
            Array.from({ length: 20 }, () => stack.publish('cli.other', {}, undefined, { tenantId: 'cli-tenant' })),
          )
        ).flatMap((p) => p.deliveryIds),
      );
    await Promise.all(more.map((id) => stack.waitForState(id, ['delivered'])));

    const cut = await hookline(['--json', 'archive', 'run', '--slice', '1', '--timeout', '1']);
    assert.equal(cut.code, 8, cut.stderr);
    assert.match(cut.stderr, /archive: 1 objects written, 2 deliveries archived/);
    assert.equal(cut.json().error.result.kind, 'partial');

    const rest = await hookline(['--json', 'archive', 'run', '--slice', '10']);
    assert.equal(rest.code, 0, rest.stderr);
    const total = cut.json().error.result.archived + rest.json().archived;
    // 60 here, the 6 replayed dead letters and the one held while paused: all delivered by now.
    assert.equal(total, 60 + failedIds.length + 1, 'every terminal delivery archived once across both runs');
    assert.equal((await stack.api.get(`/v1/deliveries/${more[0]}`)).status, 404);

    const day = new Date().toISOString().slice(0, 10);
    const restored = await hookline(['restore', '--from', day, '--to', day, '--subscription', subId]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stderr, new RegExp(`${day}: \\d+ restored`));
    assert.match(restored.stdout, /^restored \d+ deliveries from \d+ archive objects over 1 days/);
    assert.equal((await stack.api.get(`/v1/deliveries/${failedIds[0]}`)).status, 200);
    assert.equal((await hookline(['restore', '--from', day, '--to', '2020-01-01'])).code, 2);
  });

  it('portal-link prints a link to the dashboard alone on stdout; the link opens a session for that tenant; bad input exits 2', async () => {
    const run = await hookline(['portal-link', '--tenant', 'cli-tenant', '--expires-in', '900']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^http:\/\/127\.0\.0\.1:\d+\/dashboard#portal=hk_pcode_psn_\S+\n$/);
    assert.match(
      run.stderr,
      /portal link for tenant cli-tenant: works once, until \S+ \(revoke: DELETE \/v1\/tenants\/cli-tenant\/portal-sessions\/psn_/,
    );
    const code = run.stdout.trim().split('#portal=')[1]!;
    const session = await stack.api.post('/v1/portal-sessions/exchange', { code });
    assert.equal(session.status, 200);
    assert.equal(session.body.tenantId, 'cli-tenant');
    const json = await hookline(['--json', 'portal-link', '--tenant', 'cli-tenant']);
    assert.equal(json.code, 0);
    assert.equal(
      Date.parse(json.json().expiresAt) - Date.parse(json.json().createdAt),
      3_600_000,
      'an hour by default',
    );
    const tooLong = await hookline(['portal-link', '--tenant', 'cli-tenant', '--expires-in', '90000']);
    assert.equal(tooLong.code, 2);
    assert.match(tooLong.stderr, /expiresInSeconds/);
    assert.equal((await hookline(['portal-link'])).code, 2, '--tenant is required');
  });

  it('tenants create-key; exit 6 for a refused key and 7 when nothing listens', async () => {
    const minted = await hookline(['--json', 'tenants', 'create-key', 'cli-tenant']);
    assert.equal(minted.code, 0);
    assert.match(minted.json().key, /^hk_tenant_/);
    const asTenant = await hookline(['--key', minted.json().key, 'replays', 'list']);
    assert.equal(asTenant.code, 6, 'a tenant key may not read the audit trail');
    assert.equal((await hookline(['--key', 'hk_wrong', 'subscriptions', 'list'])).code, 6);
    const down = await hookline(['--api-url', 'http://127.0.0.1:9', 'subscriptions', 'list']);
    assert.equal(down.code, 7);
    assert.match(down.stderr, /cannot reach the Hookline API/);
    const noRuntime = await hookline(['--data-dir', join(dataDir, 'nowhere'), 'archive', 'run']);
    assert.equal(noRuntime.code, 7);
    assert.match(noRuntime.stderr, /no local runtime found/);
  });

  it('event-types put, list, get and delete (human and --json); bad input exits 2 before sending, a tenant key 6, an unknown type 3', async () => {
    const schemaFile = join(dataDir, 'order.schema.json');
    const exampleFile = join(dataDir, 'order.example.json');
    writeFileSync(
      schemaFile,
      '{"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]}',
    );
    writeFileSync(exampleFile, '{"amount": 12.5}');
    const put = await hookline([
      'event-types',
      'put',
      'cli.order.created',
      '--description',
      'an order was placed',
      '--schema-file',
      schemaFile,
      '--example-file',
      exampleFile,
    ]);
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stdout, /^registered cli\.order\.created\n/);
    assert.match(put.stdout, /"amount": 12\.5/);
    const again = await hookline([
      '--json',
      'event-types',
      'put',
      'cli.order.created',
      '--description',
      'old',
      '--deprecated',
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([again.json().description, again.json().deprecated, again.json().schema], ['old', true, null]);
    assert.match(
      (await hookline(['event-types', 'put', 'cli.order.created', '--description', 'x'])).stdout,
      /^replaced /,
    );

    const listed = await hookline(['event-types', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME\s+STATE\s+SCHEMA\s+DESCRIPTION\n/);
    assert.match(listed.stdout, /cli\.order\.created\s+x/);
    const listedJson = await hookline(['--json', 'event-types', 'list']);
    assert.ok(listedJson.json().items.some((t: { name: string }) => t.name === 'cli.order.created'));
    const got = await hookline(['--json', 'event-types', 'get', 'cli.order.created']);
    assert.equal(got.json().name, 'cli.order.created');

    // Refused before anything is sent, naming the flag.
    writeFileSync(join(dataDir, 'broken.json'), '{"type":');
    const broken = await hookline([
      'event-types',
      'put',
      'cli.x',
      '--description',
      'x',
      '--schema-file',
      join(dataDir, 'broken.json'),
    ]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /--schema-file is not valid JSON/);
    // Refused by the API (exit 2 for its 400, naming the field).
    const mismatch = await hookline([
      'event-types',
      'put',
      'cli.x',
      '--description',
      'x',
      '--schema-file',
      schemaFile,
      '--example-file',
      schemaFile,
    ]);
    assert.equal(mismatch.code, 2, mismatch.stderr);
    assert.match(mismatch.stderr, /example: does not match the schema/);
    assert.equal((await hookline(['event-types', 'put', 'cli.*', '--description', 'x'])).code, 2);
    const tenantKey = (await hookline(['--json', 'tenants', 'create-key', 'cli-tenant'])).json().key;
    assert.equal(
      (await hookline(['--key', tenantKey, 'event-types', 'list'])).code,
      0,
      'a tenant key reads the catalog',
    );
    assert.equal((await hookline(['--key', tenantKey, 'event-types', 'delete', 'cli.order.created'])).code, 6);

    const deleted = await hookline(['event-types', 'delete', 'cli.order.created']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^deleted cli\.order\.created from the catalog/);
    assert.equal((await hookline(['event-types', 'get', 'cli.order.created'])).code, 3);
    assert.equal((await hookline(['event-types', 'delete', 'cli.order.created'])).code, 3);
  });

  it('--aws drives the replay and archiver functions through the Lambda Invoke API (here: the local stand-in)', async () => {
    const aws = [
      '--aws',
      '--region',
      'us-east-1',
      '--lambda-endpoint',
      stack.runtime.endpoints.lambda,
      '--replay-function',
      'replay',
      '--archiver-function',
      'archiver',
      '--api-url',
      stack.runtime.url,
      '--key',
      stack.runtime.adminKey,
    ];
    // The local stand-in wants this run's token; with --aws the CLI sends $HOOKLINE_LAMBDA_TOKEN to an explicit --lambda-endpoint.
    const token = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).lambdaToken as string;
    const refused = await hookline([...aws, 'replays', 'list'], {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
    assert.equal(refused.code, 6, 'without the token the Invoke API refuses (403)');
    assert.match(refused.stderr, /token/);
    const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', HOOKLINE_LAMBDA_TOKEN: token };
    const list = await hookline([...aws, '--json', 'replays', 'list', '--limit', '2'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(list.json().items, (await stack.api.get('/v1/replays?limit=2')).body.items);
    const dry = await hookline(
      [
        ...aws,
        '--json',
        '--operator',
        'aws-cli',
        'replay-bulk',
        '--from',
        hourAgo,
        '--to',
        new Date().toISOString(),
        '--dry-run',
      ],
      env,
    );
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.json().principal, 'invoke', 'went through the replay function, not the API');
    const missing = await hookline([...aws, 'replay', 'dlv_unknown0000000000000000'], env);
    assert.equal(missing.code, 3);
    const noFunction = await hookline([...aws.slice(0, 6), 'nope', ...aws.slice(7), 'replays', 'list'], env);
    assert.equal(noFunction.code, 3);
    assert.match(noFunction.stderr, /function nope not found/);
  });

  it('subscriptions get, update, rotate-secret, test and delete; deliveries list; events list and show', async () => {
    const created = await hookline([
      '--json',
      'subscriptions',
      'create',
      '--url',
      `${stack.receiver.url}/cli-more`,
      '--event-types',
      'cli.more',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const id: string = created.json().id;
    stack.receiver.expectSecret('/cli-more', created.json().secret);

    const got = await hookline(['subscriptions', 'get', id]);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, new RegExp(`^${id}  active  since `));
    assert.match(got.stdout, /event types {3}cli\.more/);

    const updated = await hookline([
      '--json',
      'subscriptions',
      'update',
      id,
      '--description',
      'from the cli',
      '--rate-limit',
      '5',
      '--metadata',
      'team=billing',
      '--metadata',
      'tier=gold',
    ]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(
      [updated.json().description, updated.json().rateLimitPerSecond, updated.json().metadata],
      ['from the cli', 5, { team: 'billing', tier: 'gold' }],
    );
    assert.equal((await hookline(['subscriptions', 'update', id])).code, 2, 'nothing to change is a usage error');
    const refused = await hookline(['subscriptions', 'update', id, '--retry-policy', '{"jitter": 5}']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /retryPolicy\.jitter/);

    const rotated = await hookline(['--json', 'subscriptions', 'rotate-secret', id, '--overlap', '3600']);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.json().secret, /^whsec_/);
    assert.equal(rotated.json().secrets.length, 2, 'the old secret signs beside the new one for the overlap');

    const sent = await hookline(['--json', 'subscriptions', 'test', id]);
    assert.equal(sent.code, 0, sent.stderr);
    const { eventId, deliveryId } = sent.json();
    await stack.waitForState(deliveryId, ['delivered']);

    const listed = await hookline(['--json', 'deliveries', 'list', '--subscription', id, '--state', 'delivered']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      listed.json().items.map((d: any) => d.id),
      [deliveryId],
    );
    assert.match(
      (await hookline(['deliveries', 'list', '--subscription', id])).stdout,
      new RegExp(`^ID\\s+STATE[\\s\\S]*${deliveryId}\\s+delivered`),
    );

    const events = await hookline(['--json', 'events', 'list', '--type', 'hookline.test']);
    assert.equal(events.code, 0, events.stderr);
    assert.ok(
      events.json().items.some((e: any) => e.id === eventId),
      'the test event is listed',
    );
    const shown = await hookline(['events', 'show', eventId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`${deliveryId}\\s+${id}\\s+delivered`));
    assert.equal((await hookline(['events', 'show', 'no-such-event'])).code, 3);

    const deleted = await hookline(['--json', 'subscriptions', 'delete', id]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual([deleted.json().state, typeof deleted.json().deadLettered], ['deleted', 'number']);
    assert.equal((await hookline(['--json', 'subscriptions', 'get', id])).json().state, 'deleted');
  });

  it('completion bash prints a script that completes the commands', async () => {
    const run = await hookline(['completion', 'bash']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /complete -F _hookline hookline/);
    assert.equal((await hookline(['completion', 'tcsh'])).code, 2);
  });

  it('subscriptions create stores the normalised URL, and deliveries go there', async () => {
    const port = new URL(stack.receiver.url).port;
    const created = await hookline([
      '--json',
      'subscriptions',
      'create',
      '--url',
      `HTTP://127.0.0.1:${port}/x/../cli-norm`,
      '--event-types',
      'cli.norm',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.json().url, `http://127.0.0.1:${port}/cli-norm`);
    stack.receiver.expectSecret('/cli-norm', created.json().secret);
    const id = (await stack.publish('cli.norm', {})).deliveryIds[0]!;
    const delivered = await stack.waitForState(id, ['delivered']);
    assert.equal(delivered.url, `http://127.0.0.1:${port}/cli-norm`);
    assert.equal(stack.receiver.on('/cli-norm').length, 1);
  });

  it('publish: through the API with the payload text exactly as given, and through the ingest queue; bad input exits 2 before sending', async () => {
    const sub = await stack.subscribe('/cli-pub', { eventTypes: ['cli.pub'] });
    assert.ok(sub.id);
    const data = '{"total": 42.10, "big": "9007199254740993", "z": 1, "a": [1.0e2]}';
    const viaApi = await hookline(['--json', 'publish', '--type', 'cli.pub', '--data', data, '--id', 'cli-pub-1']);
    assert.equal(viaApi.code, 0, viaApi.stderr);
    assert.deepEqual(
      [viaApi.json().eventId, viaApi.json().deliveryIds.length, viaApi.json().duplicate],
      ['cli-pub-1', 1, false],
    );
    const delivered = await stack.waitForState(viaApi.json().deliveryIds[0], ['delivered']);
    assert.ok(delivered.body.includes(`"data":${data}`), `sent byte for byte: ${delivered.body}`);
    const again = await hookline(['publish', '--type', 'cli.pub', '--data', data, '--id', 'cli-pub-1']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^cli-pub-1 was published before: the same 1 deliveries, nothing new sent/);

    const viaSqs = await hookline([
      '--json',
      'publish',
      '--sqs',
      '--type',
      'cli.pub',
      '--data',
      '{"via": "sqs"}',
      '--id',
      'cli-pub-sqs',
    ]);
    assert.equal(viaSqs.code, 0, viaSqs.stderr);
    const runtimeFile = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    assert.equal(viaSqs.json().queueUrl, runtimeFile.ingestQueueUrl);
    assert.match(viaSqs.json().messageId, /\S/);
    await waitFor(
      'the queued event delivered',
      () => stack.receiver.on('/cli-pub').find((r) => r.webhookId === 'cli-pub-sqs' && r.verified),
      20_000,
    );
    assert.ok(
      stack.receiver
        .on('/cli-pub')
        .find((r) => r.webhookId === 'cli-pub-sqs')!
        .body.includes('"data":{"via": "sqs"}'),
    );
    const human = await hookline(['publish', '--sqs', '--type', 'cli.pub', '--data', '{}']);
    assert.match(
      human.stdout,
      /^sent to http:\/\/127\.0\.0\.1:\d+\/000000000000\/\S+ as message \S+; the ingest function publishes it under a generated id/,
    );

    // For a tenant: its subscription only; the event log shows and filters by it.
    const acmeSub = await stack.subscribe('/cli-pub-acme', { eventTypes: ['cli.pub'], tenantId: 'cli-acme' });
    const forAcme = await hookline([
      'publish',
      '--type',
      'cli.pub',
      '--data',
      '{}',
      '--id',
      'cli-pub-acme-1',
      '--tenant',
      'cli-acme',
    ]);
    assert.equal(forAcme.code, 0, forAcme.stderr);
    assert.match(forAcme.stdout, /^published cli-pub-acme-1 for tenant cli-acme: 1 deliveries dlv_\S+$/m);
    const shown = await hookline(['events', 'show', 'cli-pub-acme-1']);
    assert.match(shown.stdout, /for tenant cli-acme/);
    assert.match(shown.stdout, new RegExp(acmeSub.id));
    const listed = await hookline(['--json', 'events', 'list', '--tenant', 'cli-acme']);
    assert.deepEqual(
      listed.json().items.map((e: { id: string }) => e.id),
      ['cli-pub-acme-1'],
    );

    for (const [args, message] of [
      [['--data', '{"n": 9007199254740993}'], /--data n: is an integer beyond/],
      [['--data', '{}', '--tenant', 'cli acme'], /--tenant: must be 1 to 128 letters/],
      [['--data', '{oops}'], /--data is not valid JSON/],
      [['--type', 'has space', '--data', '{}'], /--type: must be/],
    ] as const) {
      const refused = await hookline([
        'publish',
        '--sqs',
        ...((args as readonly string[]).includes('--type') ? [] : ['--type', 'cli.pub']),
        ...args,
      ]);
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, message);
    }
  });

  it("env prints the runtime's endpoints as export lines (the key only with --with-key), and --json", async () => {
    const human = await hookline(['env']);
    assert.equal(human.code, 0, human.stderr);
    const file = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    assert.deepEqual(human.stdout.trim().split('\n'), [
      `export HOOKLINE_API_URL=${stack.runtime.url}`,
      `export HOOKLINE_INGEST_QUEUE_URL=${stack.runtime.queues.urls.ingest}`,
      `export HOOKLINE_INGEST_REDRIVE_QUEUE_URL=${stack.runtime.queues.redriveUrls.ingest}`,
      `export HOOKLINE_SQS_ENDPOINT=${file.sqs}`,
      `export HOOKLINE_CONSOLE_URL=${stack.runtime.url}/dashboard`,
    ]);
    // Stale exports in the shell do not leak into what env prints: it reads the runtime.
    const json = await hookline(['--json', 'env', '--with-key'], { HOOKLINE_API_URL: 'http://127.0.0.1:9' });
    assert.deepEqual(json.json(), {
      HOOKLINE_API_URL: stack.runtime.url,
      HOOKLINE_ADMIN_KEY: stack.runtime.adminKey,
      HOOKLINE_INGEST_QUEUE_URL: stack.runtime.queues.urls.ingest,
      HOOKLINE_INGEST_REDRIVE_QUEUE_URL: stack.runtime.queues.redriveUrls.ingest,
      HOOKLINE_SQS_ENDPOINT: file.sqs,
      HOOKLINE_CONSOLE_URL: `${stack.runtime.url}/dashboard`,
    });
    const none = await hookline(['--data-dir', join(dataDir, 'nowhere'), 'env']);
    assert.equal(none.code, 7);
    const awsFromLocalShell = await hookline(['--aws', 'publish', '--sqs', '--type', 'cli.pub', '--data', '{}'], {
      HOOKLINE_INGEST_QUEUE_URL: stack.runtime.queues.urls.ingest,
    });
    assert.equal(awsFromLocalShell.code, 2, 'a local queue URL exported into the shell is never used with --aws');
    assert.match(awsFromLocalShell.stderr, /--aws, but HOOKLINE_INGEST_QUEUE_URL=\S+ points at this machine/);
  });

  it("a receiver's response with terminal escapes shows them escaped in deliveries show; --json keeps it exact", async () => {
    const snippet = '\u001b]0;owned\u0007\u001b[2Jnope\rfake \u202eevil';
    stack.receiver.script('/cli-esc', [], { status: 422, body: snippet });
    const sub = await stack.subscribe('/cli-esc', { eventTypes: ['cli.esc'] });
    assert.ok(sub.id);
    const id = (await stack.publish('cli.esc', {})).deliveryIds[0]!;
    await stack.waitForState(id, ['failed']);
    const human = await hookline(['deliveries', 'show', id]);
    assert.equal(human.code, 0, human.stderr);
    assert.doesNotMatch(human.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.ok(human.stdout.includes('\\x1b]0;owned\\x07\\x1b[2Jnope\\rfake \\u202eevil'), human.stdout);
    const json = await hookline(['--json', 'deliveries', 'show', id]);
    // The 422's attempt (on a loaded machine an earlier attempt may have met a reset connection and been retried).
    const answered = json.json().attemptLog.find((a: { status: number | null }) => a.status === 422);
    assert.equal(answered?.responseSnippet, snippet);
    assert.doesNotMatch(json.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('runs as `npx hookline` from the project', async () => {
    const run = await new Promise<Run>((done) => {
      const child = spawn('npx', ['hookline', '--version'], { cwd: ROOT, env: process.env });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.once('close', (code) => done({ code, stdout, stderr: '', json: () => undefined }));
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout.trim(), '0.1.0');
  });
});

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hostname, userInfo } from 'node:os';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { Backend } from './backend.ts';
import * as commands from './commands.ts';
import { environment } from './environment.ts';
import {
  eventTypesDelete,
  eventTypesGet,
  eventTypesList,
  eventTypesPut,
  type PutEventTypeOptions,
} from './event-types.ts';
import { CliError, EXIT, ServiceCallError, type ExitCode } from './errors.ts';
import { Output } from './output.ts';
import { completionScript } from './completion.ts';
import { printable } from './printable.ts';
import { mailList, mailShow } from './mail.ts';
import { publish, type PublishOptions } from './publish.ts';
import { resolveTarget, type AwsClients, type TargetOptions } from './target.ts';

interface GlobalOptions extends TargetOptions {
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly operator?: string;
}

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

function positiveInt(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > max)
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    return n;
  };
}

/** A whole number of seconds; its bounds are the service's to check (the replay policy's, the rotation overlap's), so the CLI holds no copy. */
function seconds(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('must be a whole number of seconds');
  return Number(value);
}

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `--metadata k=v` / `--header k=v`, repeatable: collected into one object (the service checks names and values). */
function pairs(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('must be name=value');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

export interface Io {
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly env?: NodeJS.ProcessEnv;
  /** Injected AWS clients (tests). */
  readonly aws?: AwsClients;
}

/** The `hookline` command line: one subcommand per operator task, each with --help. */
export function buildProgram(io: Io = {}): {
  program: Command;
  failures: { error?: unknown; options?: GlobalOptions };
} {
  const env = io.env ?? process.env;
  const failures: { error?: unknown; options?: GlobalOptions } = {};
  const program = new Command('hookline')
    .description(
      'Operate Hookline: publish and inspect events, subscriptions, deliveries and dead letters, replay (single and bulk), archive and restore.\nTalks to the local runtime (`npm start`) by default, to the deployed stack with --aws.',
    )
    .version(VERSION)
    .option('--json', 'print the result as one JSON document on stdout (progress stays on stderr)')
    .option('-q, --quiet', 'no progress output')
    .option(
      '--aws',
      'talk to the deployed stack: the replay and archiver functions by name, the API by URL (from the stack outputs)',
    )
    .option(
      '--data-dir <dir>',
      'local runtime data folder holding runtime.json and admin-key (default: $HOOKLINE_DATA_DIR or .data)',
    )
    .option('--api-url <url>', 'HTTP API base URL (default: from runtime.json, or the stack output ApiUrl with --aws)')
    .option(
      '--key <key>',
      'admin key (default: $HOOKLINE_ADMIN_KEY, the data folder admin-key, or the stack secret with --aws)',
    )
    .option('--lambda-endpoint <url>', 'Lambda Invoke API endpoint (default: the local runtime; AWS with --aws)')
    .option(
      '--stack <name>',
      'CloudFormation stack to read outputs from with --aws (default: $HOOKLINE_STACK or Hookline)',
    )
    .option('--region <region>', 'AWS region with --aws (default: the SDK chain: $AWS_REGION, profile)')
    .option('--replay-function <name>', 'replay function name (default: stack output ReplayFunctionName)')
    .option('--archiver-function <name>', 'archiver function name (default: stack output ArchiverFunctionName)')
    .option(
      '--queue-url <url>',
      'ingest queue for publish --sqs (default: $HOOKLINE_INGEST_QUEUE_URL, runtime.json, or the stack output IngestQueueUrl with --aws)',
    )
    .option(
      '--sqs-endpoint <url>',
      'SQS endpoint for publish --sqs (default: $HOOKLINE_SQS_ENDPOINT or runtime.json; AWS itself with --aws)',
    )
    .option('--operator <name>', 'who you are, recorded in the bulk replay audit trail (default: user@host)')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  program.addHelpText(
    'after',
    `
Exit codes: 0 ok, 1 failure, 2 invalid input, 3 not found, 4 conflict (wrong state, archive busy),
            5 rate limited, 6 key refused, 7 runtime/AWS unreachable, 8 did not finish within --timeout.
Environment (a flag wins over its variable):
  HOOKLINE_DATA_DIR           local data folder with runtime.json and admin-key (--data-dir; default .data)
  HOOKLINE_API_URL            API base URL (--api-url)
  HOOKLINE_ADMIN_KEY          admin key (--key)
  HOOKLINE_INGEST_QUEUE_URL   ingest queue for publish --sqs (--queue-url)
  HOOKLINE_SQS_ENDPOINT       local SQS endpoint for publish --sqs (--sqs-endpoint)
  HOOKLINE_LAMBDA_ENDPOINT    local Invoke API (--lambda-endpoint); HOOKLINE_LAMBDA_TOKEN its token for another endpoint
  HOOKLINE_STACK, HOOKLINE_REPLAY_FUNCTION, HOOKLINE_ARCHIVER_FUNCTION   with --aws (--stack, --replay-function, --archiver-function)
  HOOKLINE_OPERATOR           --operator;  HOOKLINE_CLI_POLL_MS  polling period while waiting (ms, default 1000)
  AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE and the rest of the AWS SDK chain   with --aws
  (npm start prints the HOOKLINE_* ones as export lines; \`hookline env\` prints them again. With --aws,
   HOOKLINE_API_URL or HOOKLINE_INGEST_QUEUE_URL pointing at this machine is refused.)
Examples:
  npx hookline publish --type invoice.paid --data '{"amount":42}' --id inv-1001
  npx hookline publish --sqs --type invoice.paid --data '{"amount":42}'
  eval "$(npx hookline env)"
  npx hookline dead-letters list --subscription sub_123
  npx hookline events list --type invoice.paid && npx hookline events show inv-1001
  npx hookline subscriptions update sub_123 --event-types 'invoice.*' --rate-limit 20
  eval "$(npx hookline completion bash)"
  npx hookline replay-bulk --from 2024-05-01 --to 2024-05-02 --dry-run
  npx hookline --aws --stack Hookline replay-bulk --from 2024-05-01T00:00:00Z --to 2024-05-01T06:00:00Z
  npx hookline archive run && npx hookline restore --from 2024-02-01 --to 2024-02-03
  npx hookline event-types put order.created --description 'an order was placed' --schema-file order.schema.json
  npx hookline portal-link --tenant acme --expires-in 900
  npx hookline mail list && npx hookline mail show <id>`,
  );

  /** Wraps an action: builds the backend and output from the global options, records a failure for `main`. */
  const action =
    <A extends unknown[]>(run: (ctx: commands.Context, ...args: A) => Promise<void>) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const g = cmd.optsWithGlobals<GlobalOptions>();
      failures.options = g;
      const out = new Output({ json: Boolean(g.json), quiet: Boolean(g.quiet) }, io.stdout, io.stderr);
      const backend = new Backend(resolveTarget(g, io.aws));
      const operator = g.operator ?? env.HOOKLINE_OPERATOR ?? `${safeUser()}@${hostname()}`;
      try {
        // Commander passes the positional arguments, then the command's options, then the command.
        await run(
          {
            backend,
            out,
            operator,
            pollMs: Number(env.HOOKLINE_CLI_POLL_MS ?? 1000),
            dataDir: resolve(g.dataDir ?? env.HOOKLINE_DATA_DIR ?? '.data'),
          },
          ...(args.slice(0, -1) as A),
        );
      } catch (error) {
        failures.error = error;
      }
    };

  program
    .command('publish')
    .description('publish one event through the HTTP API (or the ingest queue with --sqs)')
    .requiredOption('--type <type>', 'event type, e.g. invoice.paid')
    .requiredOption('--data <json>', 'the payload: JSON text, sent exactly as written (e.g. \'{"amount":42}\')')
    .option('--id <id>', 'event id (default: generated); publishing the same id again sends nothing new')
    .option(
      '--tenant <id>',
      'the tenant the event belongs to: only its subscriptions receive it (default: none, only subscriptions without a tenant)',
    )
    .option('--all-tenants', "every tenant's matching subscriptions and those without a tenant (the admin key only)")
    .option(
      '--subscription <id>',
      'only this subscription of the audience (repeat for up to 20)',
      (id: string, ids: string[] = []) => [...ids, id],
    )
    .option(
      '--sqs',
      'send it to the ingest queue instead (the same JSON; accepted for later, no delivery ids in the answer)',
    )
    .action(action((ctx, o: PublishOptions) => publish(ctx, o)));

  program
    .command('env')
    .description(
      'print the API URL, queue URLs and SQS endpoint (and dashboard, if any) as export lines: eval "$(npx hookline env)"',
    )
    .option('--with-key', 'also print HOOKLINE_ADMIN_KEY (local: the data folder key; --aws: from Secrets Manager)')
    .action(action((ctx, o: { withKey?: boolean }) => environment(ctx, o)));

  const subscriptions = program
    .command('subscriptions')
    .description(
      'list, create, read, update, delete, pause and resume subscriptions; rotate secrets, send a test event',
    );
  subscriptions
    .command('list')
    .description('list subscriptions, with their state and why')
    .option('--tenant <id>', 'only this tenant')
    .option('--limit <n>', 'page size (1-100)', positiveInt(100), 50)
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'fetch every page')
    .action(
      action((ctx, o: { tenant?: string; limit: number; cursor?: string; all?: boolean }) =>
        commands.subscriptionsList(ctx, o),
      ),
    );
  subscriptions
    .command('create')
    .description('create a subscription (prints its signing secret once)')
    .requiredOption('--url <url>', 'endpoint to POST events to')
    .option('--event-types <types>', 'comma-separated event types or patterns (default: *)', list)
    .option('--tenant <id>', 'tenant the subscription belongs to')
    .option('--description <text>', 'free text')
    .action(
      action((ctx, o: { url: string; eventTypes?: string[]; tenant?: string; description?: string }) =>
        commands.subscriptionsCreate(ctx, o),
      ),
    );
  subscriptions
    .command('get')
    .description('one subscription: state, URL, event types, retry policy (never the secret)')
    .argument('<id>', 'subscription id (sub_…)')
    .action(action((ctx, id: string) => commands.subscriptionsGet(ctx, id)));
  subscriptions
    .command('update')
    .description('change a subscription: only the fields given (a new URL is checked against the target rules)')
    .argument('<id>', 'subscription id (sub_…)')
    .option('--url <url>', 'endpoint to POST events to')
    .option('--event-types <types>', 'comma-separated event types or patterns', list)
    .option('--description <text>', 'free text')
    .option('--retry-policy <json>', 'a partial retry policy as JSON, e.g. \'{"maxAttempts":6}\'')
    .option('--metadata <name=value>', 'a label, never sent (repeatable; replaces all labels)', pairs)
    .option(
      '--header <name=value>',
      'a header sent with every delivery (repeatable; replaces all custom headers)',
      pairs,
    )
    .option('--rate-limit <n>', 'at most this many attempts a second to the endpoint', positiveInt(10_000))
    .option(
      '--contact-emails <addresses>',
      'comma-separated addresses failure notices go to (at most 10; replaces the list)',
      list,
    )
    .action(action((ctx, id: string, o: commands.UpdateOptions) => commands.subscriptionsUpdate(ctx, id, o)));
  subscriptions
    .command('delete')
    .description('delete: final; nothing more is sent and the waiting deliveries are dead-lettered')
    .argument('<id>', 'subscription id (sub_…)')
    .action(action((ctx, id: string) => commands.subscriptionsDelete(ctx, id)));
  subscriptions
    .command('rotate-secret')
    .description(
      'rotate the signing secret: the new one signs at once, the old ones beside it for the overlap (prints the new one once)',
    )
    .argument('<id>', 'subscription id (sub_…)')
    .option('--secret <secret>', 'use this secret (whsec_…) instead of a fresh one')
    .option('--overlap <seconds>', 'how long the old secrets keep signing (default: a day)', seconds)
    .action(
      action((ctx, id: string, o: { secret?: string; overlap?: number }) =>
        commands.subscriptionsRotateSecret(ctx, id, o),
      ),
    );
  subscriptions
    .command('test')
    .description('send a test event (hookline.test) to this subscription alone')
    .argument('<id>', 'subscription id (sub_…)')
    .action(action((ctx, id: string) => commands.subscriptionsTest(ctx, id)));
  subscriptions
    .command('pause')
    .description('pause: events are still accepted and stored, nothing is sent until resume')
    .argument('<id>', 'subscription id (sub_…)')
    .option('--reason <text>', 'why, shown on the subscription')
    .action(action((ctx, id: string, o: { reason?: string }) => commands.subscriptionsPause(ctx, id, o)));
  subscriptions
    .command('resume')
    .description('resume: every pending delivery becomes due again, spread so the backlog drains smoothly')
    .argument('<id>', 'subscription id (sub_…)')
    .action(action((ctx, id: string) => commands.subscriptionsResume(ctx, id)));

  program
    .command('dead-letters')
    .description('failed and expired deliveries, newest first')
    .command('list')
    .description('list dead letters')
    .option('--subscription <id>', 'only this subscription')
    .option('--limit <n>', 'page size (1-100)', positiveInt(100), 50)
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'fetch every page')
    .action(
      action((ctx, o: { subscription?: string; limit: number; cursor?: string; all?: boolean }) =>
        commands.deadLettersList(ctx, o),
      ),
    );

  const deliveries = program.command('deliveries').description('inspect deliveries');
  deliveries
    .command('list')
    .description("a subscription's deliveries, newest first")
    .requiredOption('--subscription <id>', 'the subscription (sub_…)')
    .option('--state <state>', 'only this state: pending, in_flight, delivered, failed or expired')
    .option('--limit <n>', 'page size (1-100)', positiveInt(100), 50)
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'fetch every page')
    .action(
      action((ctx, o: { subscription: string; state?: string; limit: number; cursor?: string; all?: boolean }) =>
        commands.deliveriesList(ctx, o),
      ),
    );
  deliveries
    .command('show')
    .description('one delivery: state, body, headers and every attempt')
    .argument('<id>', 'delivery id (dlv_…)')
    .action(action((ctx, id: string) => commands.deliveriesShow(ctx, id)));

  const events = program.command('events').description('published events and where they went');
  events
    .command('list')
    .description('published events, newest first')
    .option('--type <type>', 'only this event type (exactly)')
    .option('--tenant <id>', 'only events published for this tenant')
    .option('--since <time>', 'created at or after: ISO 8601 time with zone, or a day (YYYY-MM-DD)')
    .option('--limit <n>', 'page size (1-100)', positiveInt(100), 50)
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--all', 'fetch every page')
    .action(action((ctx, o: commands.EventsListOptions) => commands.eventsList(ctx, o)));
  events
    .command('show')
    .description('one event: its payload and its delivery per subscription')
    .argument('<id>', 'event id')
    .action(action((ctx, id: string) => commands.eventsShow(ctx, id)));

  program
    .command('replay')
    .description('replay one failed, expired or delivered delivery now (attempts restart, fresh deadline)')
    .argument('<deliveryId>', 'delivery id (dlv_…)')
    .action(action((ctx, id: string) => commands.replayOne(ctx, id)));

  program
    .command('retry')
    .description('attempt one pending delivery now instead of after its backoff (attempts restart, fresh deadline)')
    .argument('<deliveryId>', 'delivery id (dlv_…)')
    .action(action((ctx, id: string) => commands.retryOne(ctx, id)));

  program
    .command('replay-bulk')
    .description('replay every matching delivery, re-attempts spread over a window; audited (see `replays list`)')
    .requiredOption('--from <time>', 'created at or after: ISO 8601 time with zone, or a day (YYYY-MM-DD)')
    .requiredOption('--to <time>', 'created at or before: ISO 8601 time with zone, or a day (whole day)')
    .option('--subscription <id>', 'only this subscription')
    .option('--tenant <id>', "only this tenant's subscriptions")
    .option('--states <states>', 'comma-separated: failed, expired, delivered (default: failed,expired)', list)
    .option(
      '--window <seconds>',
      'spread re-attempts over this many seconds (default: the deployment setting, 300)',
      seconds,
    )
    .option('--dry-run', 'count the matches and show a sample; change nothing')
    .option('--no-wait', 'return once the request has answered, even if the replay is still running')
    .option(
      '--timeout <seconds>',
      'give up waiting after this long (exit 8; the replay continues)',
      positiveInt(86_400),
      3600,
    )
    .action(action((ctx, o: commands.BulkOptions) => commands.replayBulk(ctx, o)));

  const eventTypes = program
    .command('event-types')
    .description(
      'the event-type catalog: the types producers publish, with a description, a JSON Schema and an example',
    );
  eventTypes
    .command('list')
    .description('every registered type, in name order')
    .action(action((ctx) => eventTypesList(ctx)));
  eventTypes
    .command('get')
    .description('one type: its description, schema and example')
    .argument('<name>', 'the event type, e.g. order.created')
    .action(action((ctx, name: string) => eventTypesGet(ctx, name)));
  eventTypes
    .command('put')
    .description('register a type, or replace it whole (a schema or example left out is removed; admin key)')
    .argument('<name>', 'the event type, e.g. order.created (one type, not a pattern; not hookline.…)')
    .requiredOption('--description <text>', 'what an event of this type means (1-1000 characters)')
    .option(
      '--schema-file <file>',
      'a JSON Schema (draft 2020-12, or draft-07 with its $schema) its payloads must match',
    )
    .option('--example-file <file>', 'an example payload (JSON); with a schema it must match it')
    .option('--deprecated', 'still accepted, with a warning when the deployment checks events')
    .action(action((ctx, name: string, o: PutEventTypeOptions) => eventTypesPut(ctx, name, o)));
  eventTypes
    .command('delete')
    .description('remove a type from the catalog (admin key)')
    .argument('<name>', 'the event type')
    .action(action((ctx, name: string) => eventTypesDelete(ctx, name)));

  const replays = program.command('replays').description('the bulk replay audit trail');
  replays
    .command('list')
    .description('bulk replays, newest first: who, what, when, how many')
    .option('--limit <n>', 'page size (1-100)', positiveInt(100), 20)
    .option('--cursor <cursor>', 'continue from a previous page')
    .action(action((ctx, o: { limit: number; cursor?: string }) => commands.replaysList(ctx, o)));
  replays
    .command('show')
    .description('one bulk replay and its counts')
    .argument('<id>', 'replay id (rpl_…)')
    .action(action((ctx, id: string) => commands.replaysShow(ctx, id)));

  program
    .command('archive')
    .description('retention: move old terminal deliveries to the S3 archive')
    .command('run')
    .description('archive now what is past retention (what the daily schedule does), with progress')
    .option('--slice <objects>', 'objects per archiver call between progress lines', positiveInt(1000), 20)
    .option('--timeout <seconds>', 'stop after this long (exit 8; run again to continue)', positiveInt(86_400), 3600)
    .action(
      action((ctx, o: { slice: number; timeout: number }) =>
        commands.archiveRun(ctx, { sliceObjects: o.slice, timeout: o.timeout }),
      ),
    );

  program
    .command('restore')
    .description('bring archived deliveries created on these days back into DynamoDB (for a dispute)')
    .requiredOption('--from <day>', 'first creation day, YYYY-MM-DD (UTC)')
    .requiredOption('--to <day>', 'last creation day, YYYY-MM-DD (UTC)')
    .option('--subscription <id>', 'only this subscription')
    .action(action((ctx, o: { from: string; to: string; subscription?: string }) => commands.restore(ctx, o)));

  const mail = program
    .command('mail')
    .description(
      'failure notice emails the local runtime caught (its mail catcher, used when HOOKLINE_SMTP_URL is not set)',
    );
  mail
    .command('list')
    .description('caught notice emails, newest first: when, to whom, subject')
    .option('--limit <n>', 'at most this many (1-1000)', positiveInt(1000), 20)
    .action(action((ctx, o: { limit: number }) => mailList(ctx, o)));
  mail
    .command('show')
    .description('one caught email: headers, then its plain-text part (--json: both parts)')
    .argument('<id>', 'its id, as `mail list` shows it')
    .action(action((ctx, id: string) => mailShow(ctx, id)));

  program
    .command('tenants')
    .description('tenant API keys')
    .command('create-key')
    .description('mint a key that sees and resends only this tenant’s deliveries (shown once)')
    .argument('<tenantId>', 'tenant id')
    .action(action((ctx, tenantId: string) => commands.tenantsCreateKey(ctx, tenantId)));

  program
    .command('portal-link')
    .description(
      "print a customer portal link: the dashboard showing one tenant's subscriptions and deliveries (it works once; stdout is the link alone)",
    )
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--subscription <id>', 'show this one subscription of the tenant only')
    .option('--expires-in <seconds>', 'how long the link works, 60 to 86400 (default 3600)', seconds)
    .option(
      '--access <level>',
      'view (the default: read, resend, retry now, pause, resume, test) or manage (also create, change, delete, rotate endpoints)',
    )
    .action(
      action((ctx, o: { tenant: string; subscription?: string; expiresIn?: number; access?: string }) =>
        commands.portalLink(ctx, o),
      ),
    );

  program
    .command('completion')
    .description('print a shell completion script: eval "$(npx hookline completion bash)" (or zsh, in ~/.zshrc)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') {
        failures.error = new CliError(`completion: the shell must be bash or zsh, not ${shell}`, EXIT.usage);
        return;
      }
      (io.stdout ?? process.stdout).write(completionScript(program, shell));
    });

  return { program, failures };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[], io: Io = {}): Promise<ExitCode> {
  const { program, failures } = buildProgram(io);
  // Commander echoes arguments back in its messages: they go through the same escaping as ours.
  program.configureOutput({
    writeOut: (s) => (io.stdout ?? process.stdout).write(printable(s, { keepNewlines: true })),
    writeErr: (s) => (io.stderr ?? process.stderr).write(printable(s, { keepNewlines: true })),
  });
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    failures.error = error;
  }
  const error = failures.error;
  if (error === undefined) return EXIT.ok;
  const out = new Output({ json: Boolean(failures.options?.json), quiet: false }, io.stdout, io.stderr);
  if (error instanceof CliError) {
    const retry =
      error instanceof ServiceCallError && error.retryAfterSeconds ? ` (retry after ${error.retryAfterSeconds} s)` : '';
    out.error(`${error.message}${retry}`);
    if (failures.options?.json) {
      const detail =
        error instanceof ServiceCallError ? { status: error.status, code: error.code } : { code: error.name };
      out.result(
        {
          error: {
            ...detail,
            message: error.message,
            exitCode: error.exitCode,
            ...('result' in error ? { result: (error as { result: unknown }).result } : {}),
          },
        },
        () => '',
      );
    }
    return error.exitCode;
  }
  out.error(`unexpected error: ${(error as Error)?.stack ?? String(error)}`);
  return EXIT.failure;
}

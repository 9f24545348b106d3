import { daysBetween } from '#domain/archive.ts';
import { ArchiveFormatError } from '#domain/errors.ts';
import type { Backend } from './backend.ts';
import { CliError, EXIT, IncompleteError } from './errors.ts';
import { table, type Output } from './output.ts';
import { line } from './printable.ts';

// biome-ignore lint/suspicious/noExplicitAny: the API's answers are printed as they come; the typed client checks their shapes.
type Json = any;

export interface Context {
  readonly backend: Backend;
  readonly out: Output;
  /** Who runs the command, recorded in the bulk replay audit trail. */
  readonly operator: string;
  /** Polling period while waiting for long operations (ms). */
  readonly pollMs: number;
  /** The local runtime's data folder (--data-dir, HOOKLINE_DATA_DIR or .data): where `mail` reads the caught notices. */
  readonly dataDir?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pages through a listing when --all is given; otherwise one page. */
async function collect(fetchPage: (cursor?: string) => Promise<Json>, all: boolean): Promise<Json> {
  const first = await fetchPage();
  if (!all) return first;
  const items = [...first.items];
  let cursor = first.nextCursor;
  while (cursor) {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { items, nextCursor: null };
}

const moreHint = (page: Json) => (page.nextCursor ? line`\n(more: --cursor ${page.nextCursor}, or --all)` : '');

export async function subscriptionsList(
  ctx: Context,
  o: { tenant?: string; limit: number; cursor?: string; all?: boolean },
) {
  const page = await collect(
    (cursor) =>
      ctx.backend.call('GET /v1/subscriptions', {
        query: { limit: o.limit, tenantId: o.tenant, cursor: cursor ?? o.cursor },
      }),
    o.all ?? false,
  );
  ctx.out.result(page, () =>
    page.items.length === 0
      ? 'no subscriptions'
      : table(
          page.items.map((s: Json) => [s.id, s.state, s.tenantId, s.eventTypes.join(','), s.url, s.stateReason]),
          ['ID', 'STATE', 'TENANT', 'EVENT TYPES', 'URL', 'REASON'],
        ) + moreHint(page),
  );
}

export async function subscriptionsCreate(
  ctx: Context,
  o: { url: string; eventTypes?: string[]; tenant?: string; description?: string },
) {
  const s = await ctx.backend.call('POST /v1/subscriptions', {
    body: {
      url: o.url,
      ...(o.eventTypes ? { eventTypes: o.eventTypes } : {}),
      ...(o.tenant ? { tenantId: o.tenant } : {}),
      ...(o.description ? { description: o.description } : {}),
    },
  });
  ctx.out.result(s, () => line`created ${s.id} (${s.state}) for ${s.url}\nsigning secret (shown once): ${s.secret}`);
}

const subscriptionLines = (s: Json) =>
  [
    line`${s.id}  ${s.state}${s.stateReason ? line` (${s.stateReason})` : ''}  since ${s.stateChangedAt}`,
    line`  url           ${s.url}`,
    line`  event types   ${s.eventTypes.join(', ')}`,
    line`  tenant        ${s.tenantId ?? '-'}   description ${s.description ?? '-'}`,
    line`  retry policy  ${s.retryPolicy ? JSON.stringify(s.retryPolicy) : 'the deployment default'}`,
    ...(s.rateLimitPerSecond ? [line`  rate limit    ${s.rateLimitPerSecond}/s`] : []),
    ...(s.headers && Object.keys(s.headers).length ? [line`  headers       ${JSON.stringify(s.headers)}`] : []),
    ...(s.metadata && Object.keys(s.metadata).length ? [line`  metadata      ${JSON.stringify(s.metadata)}`] : []),
    line`  created       ${s.createdAt}   updated ${s.updatedAt}`,
  ].join('\n');

export async function subscriptionsGet(ctx: Context, id: string) {
  const s = await ctx.backend.call('GET /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: id } });
  ctx.out.result(s, () => subscriptionLines(s));
}

export interface UpdateOptions {
  readonly url?: string;
  readonly eventTypes?: string[];
  readonly description?: string;
  readonly retryPolicy?: string;
  readonly metadata?: Record<string, string>;
  readonly header?: Record<string, string>;
  readonly rateLimit?: number;
  /** Who failure notices go to (replaces the list). */
  readonly contactEmails?: string[];
}

/** `subscriptions update`: the fields given, nothing else (the API refuses an empty change). */
export async function subscriptionsUpdate(ctx: Context, id: string, o: UpdateOptions) {
  let retryPolicy: unknown;
  if (o.retryPolicy !== undefined) {
    try {
      retryPolicy = JSON.parse(o.retryPolicy);
    } catch {
      throw new CliError('--retry-policy must be a JSON object, e.g. \'{"maxAttempts":6}\'', EXIT.usage);
    }
  }
  const body = {
    ...(o.url !== undefined ? { url: o.url } : {}),
    ...(o.eventTypes !== undefined ? { eventTypes: o.eventTypes } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(retryPolicy !== undefined ? { retryPolicy } : {}),
    ...(o.metadata !== undefined ? { metadata: o.metadata } : {}),
    ...(o.header !== undefined ? { headers: o.header } : {}),
    ...(o.rateLimit !== undefined ? { rateLimitPerSecond: o.rateLimit } : {}),
    ...(o.contactEmails !== undefined ? { contactEmails: o.contactEmails } : {}),
  };
  if (Object.keys(body).length === 0)
    throw new CliError(
      'nothing to change: give at least one of --url, --event-types, --description, --retry-policy, --metadata, --header, --rate-limit, --contact-emails',
      EXIT.usage,
    );
  const s = await ctx.backend.call('PATCH /v1/subscriptions/{subscriptionId}', {
    params: { subscriptionId: id },
    body,
  });
  ctx.out.result(s, () => `updated ${subscriptionLines(s)}`);
}

export async function subscriptionsDelete(ctx: Context, id: string) {
  const s = await ctx.backend.call('DELETE /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: id } });
  ctx.out.result(s, () => line`${s.id} is ${s.state}; ${s.deadLettered} waiting deliveries were dead-lettered`);
}

export async function subscriptionsRotateSecret(ctx: Context, id: string, o: { secret?: string; overlap?: number }) {
  const body = {
    ...(o.secret !== undefined ? { secret: o.secret } : {}),
    ...(o.overlap !== undefined ? { overlapSeconds: o.overlap } : {}),
  };
  const r = await ctx.backend.call('POST /v1/subscriptions/{subscriptionId}/rotate-secret', {
    params: { subscriptionId: id },
    ...(Object.keys(body).length ? { body } : {}),
  });
  ctx.out.result(r, () =>
    [
      r.secret ? line`new signing secret (shown once): ${r.secret}` : line`new public key: ${r.publicKey ?? '-'}`,
      table(
        r.secrets.map((e: Json) => [e.secret ?? e.publicKey, e.expiresAt ?? 'until the next rotation']),
        ['SECRET', 'SIGNS UNTIL'],
      ),
    ].join('\n'),
  );
}

export async function subscriptionsTest(ctx: Context, id: string) {
  const t = await ctx.backend.call('POST /v1/subscriptions/{subscriptionId}/test', { params: { subscriptionId: id } });
  ctx.out.result(
    t,
    () =>
      line`sent test event ${t.eventId} to ${id}: delivery ${t.deliveryId} (follow it with \`hookline deliveries show ${t.deliveryId}\`)`,
  );
}

export async function deliveriesList(
  ctx: Context,
  o: { subscription: string; state?: string; limit: number; cursor?: string; all?: boolean },
) {
  const page = await collect(
    (cursor) =>
      ctx.backend.call('GET /v1/deliveries', {
        query: { subscriptionId: o.subscription, state: o.state, limit: o.limit, cursor: cursor ?? o.cursor },
      }),
    o.all ?? false,
  );
  ctx.out.result(page, () =>
    page.items.length === 0
      ? 'no deliveries'
      : table(
          page.items.map((d: Json) => [
            d.id,
            d.state,
            d.eventId,
            d.attempts,
            d.lastStatus,
            d.nextAttemptAt,
            d.updatedAt,
          ]),
          ['ID', 'STATE', 'EVENT', 'ATTEMPTS', 'STATUS', 'NEXT ATTEMPT', 'UPDATED'],
        ) + moreHint(page),
  );
}

export interface EventsListOptions {
  readonly type?: string;
  readonly tenant?: string;
  readonly since?: string;
  readonly limit: number;
  readonly cursor?: string;
  readonly all?: boolean;
}

export async function eventsList(ctx: Context, o: EventsListOptions) {
  const page = await collect(
    (cursor) =>
      ctx.backend.call('GET /v1/events', {
        query: { type: o.type, tenantId: o.tenant, since: o.since, limit: o.limit, cursor: cursor ?? o.cursor },
      }),
    o.all ?? false,
  );
  ctx.out.result(page, () =>
    page.items.length === 0
      ? 'no events'
      : table(
          page.items.map((e: Json) => [e.id, e.type, e.createdAt, e.deliveries, e.tenantId]),
          ['ID', 'TYPE', 'CREATED', 'DELIVERIES', 'TENANT'],
        ) + moreHint(page),
  );
}

export async function eventsShow(ctx: Context, id: string) {
  const e = await ctx.backend.call('GET /v1/events/{eventId}', { params: { eventId: id } });
  ctx.out.result(e, () =>
    [
      line`${e.id}  ${e.type}  created ${e.createdAt}  for ${e.audience === 'all' ? 'every tenant' : e.tenantId ? line`tenant ${e.tenantId}` : 'subscriptions without a tenant'}${e.narrowedTo ? line` (only ${e.narrowedTo.join(' ')})` : ''}`,
      line`  payload  ${JSON.stringify(e.payload)}`,
      '',
      e.deliveries.length === 0
        ? '  no deliveries (no subscription took it)'
        : table(
            e.deliveries.map((d: Json) => [d.deliveryId, d.subscriptionId, d.state, d.attempts, d.lastStatus]),
            ['DELIVERY', 'SUBSCRIPTION', 'STATE', 'ATTEMPTS', 'STATUS'],
          ),
    ].join('\n'),
  );
}

export async function subscriptionsPause(ctx: Context, id: string, o: { reason?: string }) {
  const s = await ctx.backend.call('POST /v1/subscriptions/{subscriptionId}/pause', {
    params: { subscriptionId: id },
    ...(o.reason ? { body: { reason: o.reason } } : {}),
  });
  ctx.out.result(s, () => line`${s.id} is ${s.state} (${s.stateReason}) since ${s.stateChangedAt}`);
}

export async function subscriptionsResume(ctx: Context, id: string) {
  const s = await ctx.backend.call('POST /v1/subscriptions/{subscriptionId}/resume', {
    params: { subscriptionId: id },
  });
  ctx.out.result(
    s,
    () => line`${s.id} is ${s.state}; ${s.drained} pending deliveries are due again, spread over the drain window`,
  );
}

export async function deadLettersList(
  ctx: Context,
  o: { subscription?: string; limit: number; cursor?: string; all?: boolean },
) {
  const page = await collect(
    (cursor) =>
      ctx.backend.call('GET /v1/dead-letters', {
        query: { limit: o.limit, subscriptionId: o.subscription, cursor: cursor ?? o.cursor },
      }),
    o.all ?? false,
  );
  ctx.out.result(page, () =>
    page.items.length === 0
      ? 'no dead letters'
      : table(
          page.items.map((d: Json) => [
            d.id,
            d.state,
            d.subscriptionId,
            d.attempts,
            d.lastStatus,
            d.updatedAt,
            d.lastError,
          ]),
          ['ID', 'STATE', 'SUBSCRIPTION', 'ATTEMPTS', 'STATUS', 'UPDATED', 'LAST ERROR'],
        ) + moreHint(page),
  );
}

export async function deliveriesShow(ctx: Context, id: string) {
  const d = await ctx.backend.call('GET /v1/deliveries/{deliveryId}', { params: { deliveryId: id } });
  ctx.out.result(d, () =>
    [
      line`${d.id}  ${d.state}  (attempts ${d.attempts})`,
      line`  event         ${d.eventId}`,
      line`  subscription  ${d.subscriptionId}  ${d.url}`,
      line`  created       ${d.createdAt}   updated ${d.updatedAt}`,
      line`  give up at    ${d.giveUpAt}` + (d.nextAttemptAt ? line`   next attempt ${d.nextAttemptAt}` : ''),
      line`  last status   ${d.lastStatus ?? '-'}   last error ${d.lastError ?? '-'}`,
      line`  headers       ${JSON.stringify(d.headers)}`,
      line`  body          ${d.body ?? '-'}`,
      '',
      d.attemptLog.length === 0
        ? '  no attempts yet'
        : table(
            d.attemptLog.map((a: Json) => [
              a.seq,
              a.attempt,
              a.startedAt,
              `${a.durationMs} ms`,
              a.status,
              a.error ?? a.responseSnippet,
            ]),
            ['SEQ', 'TRY', 'STARTED', 'DURATION', 'STATUS', 'RESPONSE / ERROR'],
          ),
    ].join('\n'),
  );
}

export async function replayOne(ctx: Context, id: string) {
  const d = await ctx.backend.replay(id);
  ctx.out.result(d, () => line`${d.id} is ${d.state} again (attempts ${d.attempts}, gives up at ${d.giveUpAt})`);
}

export async function retryOne(ctx: Context, id: string) {
  const d = await ctx.backend.retry(id);
  ctx.out.result(d, () => line`${d.id} is due now (attempts ${d.attempts}, gives up at ${d.giveUpAt})`);
}

export interface BulkOptions {
  readonly from: string;
  readonly to: string;
  readonly subscription?: string;
  readonly tenant?: string;
  readonly states?: string[];
  readonly window?: number;
  readonly dryRun?: boolean;
  readonly wait: boolean;
  readonly timeout: number;
}

const replayLine = (r: Json) =>
  r.dryRun
    ? line`dry run ${r.id}: ${r.matched} deliveries match (${r.criteria.states.join(', ')}, created ${r.criteria.createdFrom} .. ${r.criteria.createdTo})` +
      (r.sample?.length ? line`\nsample: ${r.sample.join(' ')}` : '')
    : line`replay ${r.id} ${r.status}: matched ${r.matched}, replayed ${r.replayed}, skipped ${r.skipped}; re-attempts spread over ${r.windowSeconds} s`;

/**
 * Starts a bulk replay and follows it to the end, printing progress. The request itself works
 * through pages until its time budget; the replay then continues on its own (the resume
 * schedule locally, this command's further invocations on AWS) while this command polls.
 */
export async function replayBulk(ctx: Context, o: BulkOptions) {
  const startedAt = new Date(Date.now() - 1000).toISOString();
  const body = {
    createdFrom: o.from,
    createdTo: o.to,
    ...(o.subscription ? { subscriptionId: o.subscription } : {}),
    ...(o.tenant ? { tenantId: o.tenant } : {}),
    ...(o.states ? { states: o.states } : {}),
    ...(o.window !== undefined ? { windowSeconds: o.window } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
    operator: ctx.operator,
  };
  ctx.out.progress(
    `${o.dryRun ? 'dry run' : 'bulk replay'} of ${o.states?.join(', ') ?? 'failed, expired'} deliveries created ${o.from} .. ${o.to}${o.subscription ? ` for ${o.subscription}` : ''}${o.tenant ? ` of tenant ${o.tenant}` : ''}…`,
  );
  // While the request works, show the audit record's counts as they move.
  let watching = true;
  const watcher = (async () => {
    let last = '';
    while (watching) {
      await sleep(ctx.pollMs);
      if (!watching) break;
      const recent = await ctx.backend.listReplays(10).catch(() => undefined);
      const mine = recent?.items?.find(
        (r: Json) => r.operator === ctx.operator && r.startedAt >= startedAt && r.status === 'running',
      );
      const status = mine ? line`  ${mine.id}: matched ${mine.matched}, replayed ${mine.replayed}…` : '';
      if (status && status !== last) ctx.out.progress(status);
      last = status || last;
    }
  })();
  let record: Json;
  try {
    record = await ctx.backend.replayBulk(body);
  } finally {
    watching = false;
    await watcher;
  }
  const deadline = Date.now() + o.timeout * 1000;
  while (record.status === 'running' && o.wait) {
    if (Date.now() > deadline)
      throw new IncompleteError(
        `replay ${record.id} is still running after ${o.timeout} s (it continues by itself; follow it with \`hookline replays show ${record.id}\`)`,
        record,
      );
    ctx.out.progress(line`  ${record.id}: matched ${record.matched}, replayed ${record.replayed}…`);
    if (!ctx.backend.aws) await sleep(ctx.pollMs);
    record = await ctx.backend.continueReplay(record.id);
  }
  ctx.out.result(record, () => replayLine(record));
}

export async function replaysList(ctx: Context, o: { limit: number; cursor?: string }) {
  const page = await ctx.backend.listReplays(o.limit, o.cursor);
  ctx.out.result(page, () =>
    page.items.length === 0
      ? 'no bulk replays yet'
      : table(
          page.items.map((r: Json) => [
            r.id,
            r.status,
            r.dryRun ? 'dry run' : '',
            r.operator,
            r.startedAt,
            r.matched,
            r.replayed,
            `${r.criteria.states.join(',')} ${r.criteria.createdFrom}..${r.criteria.createdTo}${r.criteria.subscriptionId ? ` ${r.criteria.subscriptionId}` : ''}${r.criteria.tenantId ? ` tenant=${r.criteria.tenantId}` : ''}`,
          ]),
          ['ID', 'STATUS', 'KIND', 'OPERATOR', 'STARTED', 'MATCHED', 'REPLAYED', 'CRITERIA'],
        ) + moreHint(page),
  );
}

export async function replaysShow(ctx: Context, id: string) {
  const r = await ctx.backend.getReplay(id);
  ctx.out.result(
    r,
    () =>
      `${replayLine(r)}\n${line`operator ${r.operator} (${r.principal}), started ${r.startedAt}, finished ${r.finishedAt ?? '-'}`}`,
  );
}

/**
 * Runs the archiver in slices of `maxObjects` objects until nothing archivable is left,
 * printing the running totals after each slice.
 */
export async function archiveRun(ctx: Context, o: { sliceObjects: number; timeout: number }) {
  const total = { objects: 0, archived: 0, kept: 0, dropped: 0, resumed: 0, subscriptions: 0 };
  const deadline = Date.now() + o.timeout * 1000;
  for (;;) {
    const slice = await ctx.backend.archive(o.sliceObjects);
    if (slice.kind === 'busy')
      throw new CliError(
        'another archive run holds the lock; try again when it has finished (or its lock has expired)',
        EXIT.conflict,
      );
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += slice[k];
    ctx.out.progress(
      `  archive: ${total.objects} objects written, ${total.archived} deliveries archived${total.resumed ? `, ${total.resumed} unfinished batches finished` : ''}…`,
    );
    if (slice.kind === 'done') break;
    if (Date.now() > deadline)
      throw new IncompleteError(`archive run stopped after ${o.timeout} s with more to do; run it again to continue`, {
        kind: 'partial',
        ...total,
      });
  }
  const result = { kind: 'done', ...total };
  ctx.out.result(
    result,
    () =>
      `archive run done: ${total.objects} objects written, ${total.archived} deliveries archived and deleted from DynamoDB` +
      (total.kept ? `, ${total.kept} kept (changed after they were written; archived again later)` : '') +
      (total.dropped ? `, ${total.dropped} restored deliveries dropped after their hold` : '') +
      (total.resumed ? `, ${total.resumed} unfinished batches of an earlier run finished` : '') +
      (total.subscriptions ? `, ${total.subscriptions} deleted subscriptions archived` : ''),
  );
}

/** Restores a range of days, one day per call so progress shows and no call runs long. */
export async function restore(ctx: Context, o: { from: string; to: string; subscription?: string }) {
  const days = dayRange(o.from, o.to);
  const total = { days: 0, objects: 0, records: 0, restored: 0, present: 0, until: '' };
  for (const day of days) {
    const r = await ctx.backend.restore(day, day, o.subscription);
    total.days++;
    total.objects += r.objects;
    total.records += r.records;
    total.restored += r.restored;
    total.present += r.present;
    total.until = r.until;
    ctx.out.progress(line`  ${day}: ${r.restored} restored, ${r.present} already present (${r.objects} objects)`);
  }
  ctx.out.result(
    total,
    () =>
      line`restored ${total.restored} deliveries from ${total.objects} archive objects over ${total.days} days (${total.present} already present); they stay until ${total.until}`,
  );
}

export async function tenantsCreateKey(ctx: Context, tenantId: string) {
  const k = await ctx.backend.call('POST /v1/tenants/{tenantId}/keys', { params: { tenantId } });
  ctx.out.result(k, () => line`tenant key for ${k.tenantId} (${k.keyId}), shown once:\n${k.key}`);
}

/**
 * The UTC days from..to inclusive, one restore call each: the domain's rule for a range
 * (`daysBetween`, the one the archiver applies), refused here as a usage error before any call.
 */
export function dayRange(from: string, to: string): string[] {
  try {
    return daysBetween(from, to);
  } catch (error) {
    if (error instanceof ArchiveFormatError)
      throw new CliError(`--from/--to: ${error.message}`, EXIT.usage, { cause: error });
    throw error;
  }
}

/**
 * `portal-link`: mints a customer portal link through the API. The link alone goes to stdout
 * (for a script to mail or paste); when it ends and how to revoke it go to stderr.
 */
export async function portalLink(
  ctx: Context,
  o: { tenant: string; subscription?: string; expiresIn?: number; access?: string },
) {
  // The level goes as typed: the API refuses an unknown one naming `access`.
  const body = {
    ...(o.subscription ? { subscriptionId: o.subscription } : {}),
    ...(o.expiresIn !== undefined ? { expiresInSeconds: o.expiresIn } : {}),
    ...(o.access !== undefined ? { access: o.access as 'view' | 'manage' } : {}),
  };
  const link = await ctx.backend.call('POST /v1/tenants/{tenantId}/portal-sessions', {
    params: { tenantId: o.tenant },
    ...(Object.keys(body).length ? { body } : {}),
  });
  ctx.out.progress(
    line`${link.access} portal link for tenant ${link.tenantId}${link.subscriptionId ? line`, subscription ${link.subscriptionId} only` : ''}: works once, until ${link.expiresAt} (revoke: DELETE /v1/tenants/${link.tenantId}/portal-sessions/${link.id})`,
  );
  ctx.out.result(link, () => link.url);
}

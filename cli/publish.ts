import { ValidationError } from '#app/errors.ts';
import { parsePublishRequest } from '#app/publish/publish-request.ts';
import { MAX_JSON_NESTING, scanJsonText } from '#domain/json-text.ts';
import type { Context } from './commands.ts';
import { CliError, EXIT } from './errors.ts';
import { line } from './printable.ts';

export interface PublishOptions {
  readonly type: string;
  /** The payload's JSON text: sent exactly as written, never re-serialised. */
  readonly data: string;
  readonly id?: string;
  /** The event's tenant (`tenantId`). */
  readonly tenant?: string;
  /** `audience: "all"`. */
  readonly allTenants?: boolean;
  /** `subscriptionIds`. */
  readonly subscription?: readonly string[];
  /** Through the ingest queue instead of the HTTP API. */
  readonly sqs?: boolean;
}

/** Which flag a refused field of the event came from. */
const FLAG_OF: Readonly<Record<string, string>> = {
  id: '--id',
  type: '--type',
  tenantId: '--tenant',
  audience: '--all-tenants',
  subscriptionIds: '--subscription',
};

/**
 * The event as the API and the ingest queue take it, `{"id"?, "type", "payload"}`, with the
 * payload spliced in as text, so no number, escape or key order of `--data` changes. It is
 * checked with the service's own parser first: the queue cannot answer, so a refused message
 * would only show up in its redrive queue.
 */
export function publishBody(o: PublishOptions): string {
  const scan = scanJsonText(o.data, { maxNesting: MAX_JSON_NESTING });
  // A value's path helps ("items[3].price: …"); a syntax error's position is in the rule already.
  if (!scan.ok)
    throw new CliError(
      `--data ${scan.refusal.kind === 'value' && scan.refusal.path ? `${scan.refusal.path}: ` : ''}${scan.refusal.rule}`,
      EXIT.usage,
    );
  const fields = {
    ...(o.id !== undefined ? { id: o.id } : {}),
    type: o.type,
    ...(o.tenant !== undefined ? { tenantId: o.tenant } : {}),
    ...(o.allTenants ? { audience: 'all' } : {}),
    ...(o.subscription ? { subscriptionIds: o.subscription } : {}),
  };
  // The payload goes in as the text it is; the other fields are serialised.
  const body = `${JSON.stringify(fields).slice(0, -1)},"payload":${o.data}}`;
  try {
    parsePublishRequest(body);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new CliError(`${FLAG_OF[error.field.replace(/\[\d+\]$/, '')] ?? '--data'}: ${error.rule}`, EXIT.usage, {
      cause: error,
    });
  }
  return body;
}

/** `hookline publish`: one event, through the API (answers with its deliveries) or the ingest queue (accepted for later). */
export async function publish(ctx: Context, o: PublishOptions) {
  const body = publishBody(o);
  if (o.sqs) {
    const sent = await ctx.backend.sendToIngestQueue(body);
    const result = {
      queueUrl: sent.queueUrl,
      messageId: sent.messageId,
      ...(o.id !== undefined ? { eventId: o.id } : {}),
    };
    ctx.out.result(
      result,
      () =>
        line`sent to ${sent.queueUrl} as message ${sent.messageId}; the ingest function publishes it ${o.id !== undefined ? line`as ${o.id}` : 'under a generated id'} (one it refuses ends up in the ingest redrive queue)`,
    );
    return;
  }
  const { status, body: answer } = await ctx.backend.publish(body);
  const duplicate = status === 200;
  // Accepted, with what the event-type catalog found (a deployment that checks events): on stderr, beside the result.
  for (const warning of answer.warnings ?? []) ctx.out.progress(line`warning: ${warning.message}`);
  ctx.out.result({ ...answer, duplicate }, () => {
    const ids: string[] = answer.deliveryIds;
    if (duplicate)
      return line`${answer.eventId} was published before: the same ${ids.length} deliveries, nothing new sent`;
    const audience = o.allTenants
      ? 'every tenant'
      : o.tenant !== undefined
        ? line`tenant ${o.tenant}`
        : 'subscriptions without a tenant';
    return ids.length === 0
      ? line`published ${answer.eventId} for ${audience}: no subscription takes ${o.type}`
      : line`published ${answer.eventId} for ${audience}: ${ids.length} deliveries ${ids.join(' ')}`;
  });
}

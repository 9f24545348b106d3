import { join, resolve } from 'node:path';
import { listCaughtMail } from '#adapters/file-mail-catcher.ts';
import type { Context } from './commands.ts';
import { CliError, EXIT } from './errors.ts';
import { table } from './output.ts';
import { line } from './printable.ts';

/**
 * The local mail catcher's messages (`<data folder>/mail/`): what failure notices the local
 * runtime would have emailed. Read straight from the folder, so it works with the runtime
 * stopped too. On AWS notices go through SES to real mailboxes: there is nothing to list.
 */
const mailDir = (ctx: Context) => join(ctx.dataDir ?? resolve('.data'), 'mail');

function caught(ctx: Context) {
  if (ctx.backend.aws)
    throw new CliError('mail: only the local runtime catches mail; on AWS notices go through Amazon SES', EXIT.usage);
  return listCaughtMail(mailDir(ctx));
}

export async function mailList(ctx: Context, o: { limit: number }) {
  const items = [...caught(ctx)].reverse().slice(0, o.limit);
  ctx.out.result({ items }, () =>
    items.length === 0
      ? line`no caught mail in ${mailDir(ctx)}`
      : table(
          items.map((m) => [m.id, m.receivedAt, [...m.to, ...m.bcc.map((b) => `bcc:${b}`)].join(','), m.subject]),
          ['ID', 'RECEIVED', 'TO', 'SUBJECT'],
        ),
  );
}

export async function mailShow(ctx: Context, id: string) {
  const message = caught(ctx).find((m) => m.id === id);
  if (!message) throw new CliError(`mail: no caught message ${id} (see \`hookline mail list\`)`, EXIT.notFound);
  ctx.out.result(message, () =>
    [
      line`From: ${message.from}`,
      line`To: ${message.to.join(', ')}`,
      ...(message.bcc.length > 0 ? [line`Bcc: ${message.bcc.join(', ')}`] : []),
      line`Subject: ${message.subject}`,
      line`Date: ${message.receivedAt}`,
      line`Message-ID: ${message.messageId}`,
      ...Object.entries(message.headers).map(([k, v]) => line`${k}: ${v}`),
      '',
      message.text,
    ].join('\n'),
  );
}

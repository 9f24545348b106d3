import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mailer, MailMessage, MailResult } from '#ports/mailer.ts';
import type { CaughtMessage, Mailbox } from '#ports/mailbox.ts';

/** A message as the catcher keeps it: one JSON file per message id under `<data folder>/mail/`. */
export interface CaughtMail extends MailMessage {
  /** The file's name without `.json`: what `hookline mail show` takes. */
  readonly id: string;
  readonly from: string;
  readonly receivedAt: string;
}

/** The file a message id is kept in: its hash, so no id can name a path. */
function fileIdOf(messageId: string): string {
  return createHash('sha256').update(messageId).digest('base64url').slice(0, 22);
}

/**
 * The local runtime's mail catcher when no HOOKLINE_SMTP_URL is set: every message becomes a
 * file in the data folder (0600), written with an exclusive create, so a message id already
 * caught is a duplicate and is never kept twice. `hookline mail list` reads them back.
 */
export class FileMailCatcher implements Mailer {
  readonly enabled = true;
  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly now: () => number = Date.now,
  ) {}

  async send(message: MailMessage): Promise<MailResult> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const receivedAt = new Date(this.now()).toISOString();
    // Named by the message id alone, so the exclusive create is the duplicate check.
    const id = fileIdOf(message.messageId);
    const caught: CaughtMail = { id, from: this.from, receivedAt, ...message };
    try {
      writeFileSync(join(this.dir, `${id}.json`), `${JSON.stringify(caught, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { kind: 'duplicate' };
      throw error;
    }
    return { kind: 'sent' };
  }
}

/** Every caught message, oldest first (what `hookline mail list` and a local console show). */
export function listCaughtMail(dir: string): readonly CaughtMail[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as CaughtMail)
    .sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.id.localeCompare(b.id));
}

/** The catcher's folder as a Mailbox, for the operator console (GET /v1/mail, local runtime only). */
export class FileMailbox implements Mailbox {
  constructor(private readonly dir: string) {}

  async list(limit: number): Promise<readonly CaughtMessage[]> {
    return listCaughtMail(this.dir)
      .slice(-limit)
      .reverse()
      .map((m) => ({ id: m.id, from: m.from, to: m.to, subject: m.subject, text: m.text, receivedAt: m.receivedAt }));
  }
}

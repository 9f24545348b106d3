import nodemailer, { type Transporter } from 'nodemailer';
import type { Mailer, MailMessage, MailResult } from '#ports/mailer.ts';
import { MAIL_FROM_NAME } from './ses-mailer.ts';

/**
 * How long one SMTP exchange may take. Well under the notices' lease (HOOKLINE_NOTICE_LEASE_SECONDS,
 * 120 s by default), so a send still running is never taken over and sent a second time.
 */
const SMTP_TIMEOUT_MS = 20_000;

/**
 * Notice emails over SMTP (the local runtime with HOOKLINE_SMTP_URL, e.g. a Mailpit or a
 * company relay). The notice's stable Message-ID goes with the message, so a relay or mailbox that
 * dedupes on it drops a re-send after a crash.
 */
export class SmtpMailer implements Mailer {
  readonly enabled = true;
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport({
      url,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
  }

  async send(message: MailMessage): Promise<MailResult> {
    await this.transport.sendMail({
      from: { name: MAIL_FROM_NAME, address: this.from },
      to: [...message.to],
      ...(message.bcc.length > 0 ? { bcc: [...message.bcc] } : {}),
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: message.messageId,
      headers: { ...message.headers },
    });
    return { kind: 'sent' };
  }
}

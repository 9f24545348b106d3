import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { Mailer, MailMessage, MailResult } from '#ports/mailer.ts';

/** The display name beside every From address. */
export const MAIL_FROM_NAME = 'Hookline';

/**
 * Notice emails through Amazon SES v2 `SendEmail`, from the deployment's SES identity (the
 * notifier's role may send from that identity only). SES sets its own Message-ID, so a send
 * whose answer was lost cannot be told from one that never happened: the notice's own id travels
 * as `X-Hookline-Notice` for a reader to match (docs/operations.md, the at-most-one-duplicate window).
 */
export class SesMailer implements Mailer {
  readonly enabled = true;
  constructor(
    private readonly ses: SESv2Client,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<MailResult> {
    await this.ses.send(
      new SendEmailCommand({
        FromEmailAddress: `${MAIL_FROM_NAME} <${this.from}>`,
        Destination: {
          ToAddresses: [...message.to],
          ...(message.bcc.length > 0 ? { BccAddresses: [...message.bcc] } : {}),
        },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
            Headers: Object.entries(message.headers).map(([Name, Value]) => ({ Name, Value })),
          },
        },
      }),
    );
    return { kind: 'sent' };
  }
}

/** No email in this deployment (no SES identity configured): notices still go as operational webhooks and log lines. */
export class OffMailer implements Mailer {
  readonly enabled = false;
  async send(): Promise<MailResult> {
    return { kind: 'off' };
  }
}

import { SESv2Client } from '@aws-sdk/client-sesv2';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { isEmailAddress } from '#domain/notices.ts';
import { OffMailer, SesMailer } from '../ses-mailer.ts';
import type { Factories, Vars } from './factory.ts';

/** HOOKLINE_MAIL_TRANSPORT's values: SES on AWS, the local runtime's SMTP or catcher, or no email. */
export const MAIL_TRANSPORTS = ['ses', 'local', 'off'] as const;
export type MailTransport = (typeof MAIL_TRANSPORTS)[number];

/** The transport and From address, checked: a bad value stops the function at cold start, naming the variable. */
export function mailSettings(v: Vars): { transport: MailTransport; from: string } {
  const transport = v.HOOKLINE_MAIL_TRANSPORT as MailTransport;
  if (!MAIL_TRANSPORTS.includes(transport))
    throw new InvalidEnvironmentError(
      'HOOKLINE_MAIL_TRANSPORT',
      `must be one of ${MAIL_TRANSPORTS.join(', ')}, not '${v.HOOKLINE_MAIL_TRANSPORT}'`,
    );
  if (!isEmailAddress(v.HOOKLINE_MAIL_FROM))
    throw new InvalidEnvironmentError('HOOKLINE_MAIL_FROM', `must be one email address, not '${v.HOOKLINE_MAIL_FROM}'`);
  return { transport, from: v.HOOKLINE_MAIL_FROM };
}

/** Notice email on AWS: only the notifier's bundle carries the SES client. `local` is the local runtime's (local-mail-factories.ts). */
export const MAIL_FACTORIES: Factories<'mailer'> = {
  mailer: (v, s) => {
    const { transport, from } = mailSettings(v);
    if (transport === 'off') return new OffMailer();
    // Bounded well under the notices' lease (120 s by default), so a send still running is never taken over and sent twice.
    if (transport === 'ses')
      return new SesMailer(
        s.options.clients?.ses ??
          new SESv2Client({ requestHandler: { connectionTimeout: 5000, requestTimeout: 20_000 } }),
        from,
      );
    throw new InvalidEnvironmentError('HOOKLINE_MAIL_TRANSPORT', "is 'local', which only the local runtime provides");
  },
};

import { FileMailCatcher } from '../file-mail-catcher.ts';
import { SmtpMailer } from '../smtp-mailer.ts';
import type { Factories } from './factory.ts';
import { MAIL_FACTORIES, mailSettings } from './mail-factories.ts';

/**
 * The local runtime's notice email (HOOKLINE_MAIL_TRANSPORT `local`): SMTP when HOOKLINE_SMTP_URL
 * is set, else the mail catcher in the data folder. Kept apart from MAIL_FACTORIES so no Lambda
 * bundle carries nodemailer.
 */
export const LOCAL_MAIL_FACTORIES: Factories<'mailer'> = {
  mailer: (v, s) => {
    const { transport, from } = mailSettings(v);
    const local = s.options.localMail;
    if (transport !== 'local' || !local) return MAIL_FACTORIES.mailer(v, s);
    return local.smtpUrl ? new SmtpMailer(local.smtpUrl, from) : new FileMailCatcher(local.dir, from, s.clock.now);
  },
};

/** One email: plain text and HTML of the same content. */
export interface MailMessage {
  /**
   * Stable for one notice (`<…@hookline>`): a mail catcher keeps one message per id, and an
   * SMTP relay or a mailbox that dedupes on Message-ID drops a re-send.
   */
  readonly messageId: string;
  readonly to: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Extra headers (X-Hookline-Notice, X-Hookline-Subscription). */
  readonly headers: Readonly<Record<string, string>>;
}

export type MailResult =
  | { readonly kind: 'sent' }
  /** The same message id was sent before (the local catcher knows): nothing sent again. */
  | { readonly kind: 'duplicate' }
  /** Email is off in this deployment (no SES identity): nothing sent. */
  | { readonly kind: 'off' };

/** Sends notices by email: Amazon SES on AWS, SMTP or a mail catcher in the data folder locally. */
export interface Mailer {
  /** False when email is off: the notifier then needs another channel (an operational webhook) to decide a notice at all. */
  readonly enabled: boolean;
  send(message: MailMessage): Promise<MailResult>;
}

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpMessage {
  readonly raw: string;
  /** Header values by lower-cased name (the first of each). */
  readonly headers: Readonly<Record<string, string>>;
  readonly to: readonly string[];
}

/**
 * A local SMTP server a test points HOOKLINE_SMTP_URL at: it keeps every message it accepts, and
 * while `hanging` it accepts connections but never greets, so a sender is stuck mid-send (what a
 * crash between deciding a notice and sending it looks like from outside).
 */
export class SmtpSink {
  readonly messages: SmtpMessage[] = [];
  /** Connections opened (greeted or not). */
  connections = 0;
  hanging = false;
  private server?: SMTPServer;
  url = '';

  async start(port = 0): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: no certificate to trust, and nodemailer would try STARTTLS if offered.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // A hanging connection must not hold the test's clean-up.
      closeTimeout: 100,
      onConnect: (_session, callback) => {
        this.connections++;
        if (!this.hanging) callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
          const headers: Record<string, string> = {};
          for (const line of head.split(/\r?\n/)) {
            const at = line.indexOf(':');
            if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] ??= line.slice(at + 1).trim();
          }
          this.messages.push({ raw, headers, to: session.envelope.rcptTo.map((r) => r.address) });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', () => resolve()));
    const address = (this.server as unknown as { server: { address(): AddressInfo } }).server.address();
    this.url = `smtp://127.0.0.1:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

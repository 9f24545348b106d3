import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { FileMailCatcher, listCaughtMail } from '#adapters/file-mail-catcher.ts';
import { OffMailer, SesMailer } from '#adapters/ses-mailer.ts';
import { buildDeps } from '#adapters/function-deps.ts';
import { MAIL_FACTORIES } from '#adapters/deps/mail-factories.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';
import { LOCAL_MAIL_FACTORIES } from '#adapters/deps/local-mail-factories.ts';
import { SmtpMailer } from '#adapters/smtp-mailer.ts';
import type { InvalidEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS, type EnvName } from '#config/topology.ts';
import type { MailMessage } from '#ports/mailer.ts';
import { noMetrics } from '#ports/metrics.ts';

const MESSAGE: MailMessage = {
  messageId: '<ntc_abc@hookline>',
  to: ['ann@customer.test'],
  bcc: ['help@producer.test'],
  subject: 'Failing: your webhook endpoint https://hooks.example.com (1 hour)',
  text: 'Your webhook endpoint https://hooks.example.com has been failing for 1 hour.',
  html: '<p>Your webhook endpoint https://hooks.example.com has been failing for 1 hour.</p>',
  headers: { 'X-Hookline-Notice': 'sub_1#2024-05-01T12:00:00.000Z#failing' },
};

describe('SesMailer: SES v2 SendEmail from the deployment identity', () => {
  const ses = mockClient(SESv2Client);
  beforeEach(() => ses.reset());
  after(() => ses.restore());

  it('sends both parts, To and Bcc, the notice headers, from "Hookline <from>"', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    assert.deepEqual(
      await new SesMailer(new SESv2Client({ region: 'eu-west-1' }), 'notices@example.com').send(MESSAGE),
      { kind: 'sent' },
    );
    const [call] = ses.commandCalls(SendEmailCommand);
    assert.deepEqual(call!.args[0].input, {
      FromEmailAddress: 'Hookline <notices@example.com>',
      Destination: { ToAddresses: ['ann@customer.test'], BccAddresses: ['help@producer.test'] },
      Content: {
        Simple: {
          Subject: { Data: MESSAGE.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: MESSAGE.text, Charset: 'UTF-8' }, Html: { Data: MESSAGE.html, Charset: 'UTF-8' } },
          Headers: [{ Name: 'X-Hookline-Notice', Value: 'sub_1#2024-05-01T12:00:00.000Z#failing' }],
        },
      },
    });
  });

  it('a refusal (throttling, an unverified identity) is thrown: the notice stays decided and is retried', async () => {
    ses
      .on(SendEmailCommand)
      .rejects(Object.assign(new Error('Email address is not verified.'), { name: 'MessageRejected' }));
    await assert.rejects(
      new SesMailer(new SESv2Client({ region: 'eu-west-1' }), 'notices@example.com').send(MESSAGE),
      /not verified/,
    );
  });
});

describe("FileMailCatcher: the local runtime's mail", () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-mail-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each message once (the message id is the file), owner-only, listed oldest first', async () => {
    let now = Date.parse('2024-05-01T12:00:00.000Z');
    const catcher = new FileMailCatcher(join(dir, 'mail'), 'notices@hookline.invalid', () => now);
    assert.deepEqual(await catcher.send(MESSAGE), { kind: 'sent' });
    now += 1000;
    assert.deepEqual(
      await catcher.send({ ...MESSAGE, subject: 'again' }),
      { kind: 'duplicate' },
      'a re-send after a crash is not kept twice',
    );
    await catcher.send({ ...MESSAGE, messageId: '<ntc_def@hookline>', subject: 'second' });
    const caught = listCaughtMail(join(dir, 'mail'));
    assert.deepEqual(
      caught.map((m) => [m.subject, m.receivedAt, m.from]),
      [
        [MESSAGE.subject, '2024-05-01T12:00:00.000Z', 'notices@hookline.invalid'],
        ['second', '2024-05-01T12:00:01.000Z', 'notices@hookline.invalid'],
      ],
    );
    assert.equal(readdirSync(join(dir, 'mail')).length, 2);
    assert.equal(statSync(join(dir, 'mail', `${caught[0]!.id}.json`)).mode & 0o777, 0o600);
    assert.deepEqual(listCaughtMail(join(dir, 'nothing-here')), []);
  });
});

describe('which mailer a function gets (HOOKLINE_MAIL_TRANSPORT)', () => {
  const env = (over: Partial<Record<EnvName, string>>) => ({
    ...Object.fromEntries(Object.keys(ENV_DEFAULTS).map((n) => [n, ENV_DEFAULTS[n as EnvName] ?? `value-of-${n}`])),
    ...over,
  });
  const mailer = (over: Partial<Record<EnvName, string>>, local = false) =>
    buildDeps(
      'notifier',
      env(over),
      { metrics: noMetrics, localMail: { dir: '/tmp/unused' } },
      local ? { ...ALL_FACTORIES, ...LOCAL_MAIL_FACTORIES } : { ...ALL_FACTORIES, ...MAIL_FACTORIES },
    ).mailer;

  it('off by default (no email, so a notice needs an operational subscriber to be decided at all); ses with an identity', () => {
    assert.ok(mailer({}) instanceof OffMailer);
    assert.equal(mailer({}).enabled, false);
    assert.ok(
      mailer({ HOOKLINE_MAIL_TRANSPORT: 'ses', HOOKLINE_MAIL_FROM: 'notices@example.com' }) instanceof SesMailer,
    );
  });
  it('local: only the local runtime has it (the catcher, or SMTP with a URL)', () => {
    assert.throws(
      () => mailer({ HOOKLINE_MAIL_TRANSPORT: 'local' }),
      (e: InvalidEnvironmentError) => /HOOKLINE_MAIL_TRANSPORT/.test(e.message),
    );
    assert.ok(mailer({ HOOKLINE_MAIL_TRANSPORT: 'local' }, true) instanceof FileMailCatcher);
    const smtp = buildDeps(
      'notifier',
      env({ HOOKLINE_MAIL_TRANSPORT: 'local' }),
      { metrics: noMetrics, localMail: { dir: '/tmp/x', smtpUrl: 'smtp://127.0.0.1:2525' } },
      { ...ALL_FACTORIES, ...LOCAL_MAIL_FACTORIES },
    ).mailer;
    assert.ok(smtp instanceof SmtpMailer);
  });
  it('a bad value stops the function at cold start, naming the variable', () => {
    assert.throws(
      () => mailer({ HOOKLINE_MAIL_TRANSPORT: 'sendmail' }),
      /HOOKLINE_MAIL_TRANSPORT must be one of ses, local, off/,
    );
    assert.throws(
      () => mailer({ HOOKLINE_MAIL_TRANSPORT: 'ses', HOOKLINE_MAIL_FROM: 'not an address' }),
      /HOOKLINE_MAIL_FROM must be one email address/,
    );
  });
  it('notice and console settings: `none` means none; anything else is checked', () => {
    const settings = (over: Partial<Record<EnvName, string>>) => {
      const deps = buildDeps('notifier', env(over), { metrics: noMetrics }, ALL_FACTORIES);
      return { ...deps.noticeSettings, ...deps.consoleSettings };
    };
    assert.deepEqual(settings({}), {});
    assert.deepEqual(
      settings({
        HOOKLINE_NOTICE_SUPPORT_EMAIL: 'help@producer.test',
        HOOKLINE_CONSOLE_URL: 'https://console.example.com',
      }),
      { supportEmail: 'help@producer.test', consoleUrl: 'https://console.example.com' },
    );
    assert.throws(
      () => settings({ HOOKLINE_NOTICE_SUPPORT_EMAIL: 'a@b.co, c@d.co' }),
      /HOOKLINE_NOTICE_SUPPORT_EMAIL must be one email address/,
    );
    assert.throws(
      () => settings({ HOOKLINE_CONSOLE_URL: 'console.example.com' }),
      /HOOKLINE_CONSOLE_URL must be an http\(s\) URL/,
    );
    assert.throws(
      () =>
        buildDeps(
          'notifier',
          env({ HOOKLINE_NOTICE_SECOND_SECONDS: '10', HOOKLINE_NOTICE_FIRST_SECONDS: '20' }),
          { metrics: noMetrics },
          ALL_FACTORIES,
        ),
      /HOOKLINE_NOTICE_SECOND_SECONDS/,
    );
  });
});

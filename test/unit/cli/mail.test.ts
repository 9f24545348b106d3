import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { FileMailCatcher } from '#adapters/file-mail-catcher.ts';
import { EXIT } from '#cli/errors.ts';
import { main } from '#cli/main.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hookline-cli-mail-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function sink() {
  let text = '';
  return {
    stream: new Writable({ write: (chunk, _enc, done) => ((text += String(chunk)), done()) }),
    text: () => text,
  };
}

async function run(...args: string[]) {
  const stdout = sink();
  const stderr = sink();
  const code = await main(['node', 'hookline', '--data-dir', dataDir, ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {},
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('hookline mail: the local mail catcher', () => {
  it('lists caught notices newest first and shows one (headers, then the text part), escaping what came from outside', async () => {
    assert.match((await run('mail', 'list')).stdout, /^no caught mail in /);
    let now = Date.parse('2024-05-01T12:00:00.000Z');
    const catcher = new FileMailCatcher(join(dataDir, 'mail'), 'notices@hookline.invalid', () => now);
    const message = {
      to: ['ann@customer.test'],
      bcc: ['help@producer.test'],
      html: '<p>x</p>',
      headers: { 'X-Hookline-Notice': 'sub_1#t#failing' },
    };
    await catcher.send({
      ...message,
      messageId: '<a@hookline>',
      subject: 'Failing: first',
      text: 'Your webhook endpoint \u001b[2J has been failing.',
    });
    now += 60_000;
    await catcher.send({ ...message, messageId: '<b@hookline>', subject: 'Still failing: second', text: 'second' });

    const list = await run('mail', 'list');
    assert.equal(list.code, EXIT.ok);
    const lines = list.stdout.trim().split('\n');
    assert.match(lines[0]!, /^ID\s+RECEIVED\s+TO\s+SUBJECT$/);
    assert.match(
      lines[1]!,
      /2024-05-01T12:01:00\.000Z\s+ann@customer\.test,bcc:help@producer\.test\s+Still failing: second$/,
    );
    assert.match(lines[2]!, /Failing: first$/);

    const json = JSON.parse((await run('--json', 'mail', 'list', '--limit', '1')).stdout) as {
      items: { id: string; subject: string }[];
    };
    assert.deepEqual(
      json.items.map((m) => m.subject),
      ['Still failing: second'],
    );
    const id = lines[2]!.split(/\s+/)[0]!;
    const shown = await run('mail', 'show', id);
    assert.match(
      shown.stdout,
      /^From: notices@hookline\.invalid\nTo: ann@customer\.test\nBcc: help@producer\.test\nSubject: Failing: first\n/,
    );
    assert.match(shown.stdout, /X-Hookline-Notice: sub_1#t#failing/);
    assert.ok(
      shown.stdout.includes('Your webhook endpoint \\x1b[2J has been failing.'),
      'a control character is shown, not obeyed',
    );
  });

  it('an unknown id is exit 3; with --aws there is nothing to list (SES delivers the mail), exit 2', async () => {
    assert.equal((await run('mail', 'show', 'nope')).code, EXIT.notFound);
    const aws = await run('--aws', 'mail', 'list');
    assert.equal(aws.code, EXIT.usage);
    assert.match(aws.stderr, /only the local runtime catches mail/);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { banner } from '#local/banner.ts';
import { exportLine, shellQuote } from '#local/shell-export.ts';

const runtime = {
  url: 'http://127.0.0.1:3000',
  adminKey: 'hk_admin_secret_value_0123456789',
  dataDir: '/data',
  endpoints: {
    dynamodb: 'http://127.0.0.1:3001',
    sqs: 'http://127.0.0.1:3002',
    s3: 'http://127.0.0.1:3002',
    lambda: 'http://127.0.0.1:3003',
  },
  embedded: { dynamodb: true, sqs: true, s3: true },
  resourcePrefix: '',
  queues: { urls: { ingest: 'http://127.0.0.1:3002/000000000000/hookline-ingest' } },
};
const exportsOf = (text: string) => text.split('\n').filter((l) => l.startsWith('  export '));

describe('npm start banner: lines to paste', () => {
  it('prints the ingest queue and export lines for the API, the key, the queue and the SQS endpoint', () => {
    const text = banner(runtime, { adminKeyFromEnvironment: false, allowPrivate: true });
    assert.match(text, /\n {2}Ingest {5}http:\/\/127\.0\.0\.1:3002\/000000000000\/hookline-ingest {3}\(SQS/);
    assert.deepEqual(exportsOf(text), [
      '  export HOOKLINE_API_URL=http://127.0.0.1:3000 HOOKLINE_ADMIN_KEY=hk_admin_secret_value_0123456789',
      '  export HOOKLINE_INGEST_QUEUE_URL=http://127.0.0.1:3002/000000000000/hookline-ingest HOOKLINE_SQS_ENDPOINT=http://127.0.0.1:3002',
    ]);
    assert.doesNotMatch(
      text,
      /AWS_ENDPOINT_URL_SQS=/,
      'never exported: a later npm start in that shell would take it as an external SQS',
    );
    assert.ok(text.endsWith('Press Ctrl+C to stop.'));
  });

  it('a key from HOOKLINE_ADMIN_KEY is left out of the export line, which says to use your own variable', () => {
    const text = banner(runtime, { adminKeyFromEnvironment: true, allowPrivate: true });
    assert.ok(!text.includes(runtime.adminKey));
    assert.match(
      exportsOf(text)[0]!,
      /^ {2}export HOOKLINE_API_URL=http:\/\/127\.0\.0\.1:3000 {3}# and HOOKLINE_ADMIN_KEY: set it from your own variable/,
    );
  });

  it('shows a dashboard only when there is one (none locally yet)', () => {
    assert.doesNotMatch(banner(runtime, { adminKeyFromEnvironment: false, allowPrivate: true }), /Dashboard|DASHBOARD/);
    const text = banner(
      { ...runtime, dashboardUrl: 'http://127.0.0.1:3004/' },
      { adminKeyFromEnvironment: false, allowPrivate: true },
    );
    assert.match(text, /\n {2}Dashboard {2}http:\/\/127\.0\.0\.1:3004\//);
    assert.equal(exportsOf(text)[2], '  export HOOKLINE_DASHBOARD_URL=http://127.0.0.1:3004/');
  });

  it('prints the web dashboard (operator console, customer portal) the runtime serves, and its export', () => {
    const text = banner(
      { ...runtime, consoleUrl: 'http://127.0.0.1:3000/dashboard' },
      { adminKeyFromEnvironment: false, allowPrivate: true },
    );
    assert.match(
      text,
      /\n {2}Console {4}http:\/\/127\.0\.0\.1:3000\/dashboard {3}\(web dashboard: paste the admin key; customer links: npx hookline portal-link --tenant <id>\)\n/,
    );
    assert.ok(exportsOf(text).includes('  export HOOKLINE_CONSOLE_URL=http://127.0.0.1:3000/dashboard'));
    assert.doesNotMatch(banner(runtime, { adminKeyFromEnvironment: false, allowPrivate: true }), /Console|CONSOLE/);
  });

  it('quotes a value a shell would act on', () => {
    assert.equal(shellQuote('http://127.0.0.1:3000/a_b-c.d'), 'http://127.0.0.1:3000/a_b-c.d');
    assert.equal(shellQuote("it's $(rm -rf ~)"), `'it'\\''s $(rm -rf ~)'`);
    assert.equal(shellQuote(''), "''");
    assert.equal(
      exportLine([
        ['A', 'x y'],
        ['B', '1'],
      ]),
      "export A='x y' B=1",
    );
  });
});

describe('npm start banner: the admin key', () => {
  it('never shows a key from HOOKLINE_ADMIN_KEY, only where it came from', () => {
    const text = banner(runtime, { adminKeyFromEnvironment: true, allowPrivate: true });
    assert.ok(!text.includes(runtime.adminKey));
    assert.match(text, /Admin key {2}from HOOKLINE_ADMIN_KEY \(not shown\)/);
  });

  it('shows a generated key with the file that keeps it', () => {
    assert.match(
      banner(runtime, { adminKeyFromEnvironment: false, allowPrivate: false }),
      /Admin key {2}hk_admin_secret_value_0123456789 {3}\(kept in \/data\/admin-key\)/,
    );
  });
});

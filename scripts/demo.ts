/**
 * `npm run demo`: a newcomer's first minute with Hookline. Uses the runtime `npm start` is
 * running (found as the CLI finds it: $HOOKLINE_API_URL, else the data folder's runtime.json;
 * key from $HOOKLINE_ADMIN_KEY or the data folder), or starts one in-process, plus a sample
 * receiver that verifies every signature with the `standardwebhooks` library. Shows a
 * delivery, a retry that succeeds, and a dead letter. Its receiver goes away with it, so it
 * deletes the subscriptions it made on the way out: nothing is sent to a dead port later, and
 * their deliveries and dead letters stay readable for the retention period.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRuntimeFile } from '#local/runtime-file.ts';
import { startRuntime, type Runtime } from '#local/runtime.ts';
import { apiClient } from '#test/api-client.ts';
import { TestReceiver } from '#test/receiver.ts';
import { waitFor } from '#test/wait.ts';

const DEMO_RETRY = { initialDelaySeconds: 2, multiplier: 2, maxDelaySeconds: 8, jitter: 0.2, deadlineSeconds: 120 };
const started = Date.now();
const log = (msg: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${msg}`);

/** The API URL of a running `npm start`: the variable the banner exports, else the data folder's runtime.json. */
function runningUrl(dataDir: string): string | undefined {
  if (process.env.HOOKLINE_API_URL) return process.env.HOOKLINE_API_URL.replace(/\/+$/, '');
  const file = join(dataDir, 'runtime.json');
  try {
    return existsSync(file) ? parseRuntimeFile(readFileSync(file, 'utf8'), file).api : undefined;
  } catch {
    return undefined;
  }
}

async function connect(): Promise<{ url: string; key: string; runtime?: Runtime }> {
  const dataDir = process.env.HOOKLINE_DATA_DIR ?? '.data';
  const url = runningUrl(dataDir);
  const keyFile = join(dataDir, 'admin-key');
  const healthy =
    url !== undefined &&
    (await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    ));
  const key =
    process.env.HOOKLINE_ADMIN_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined);
  if (healthy && key) {
    log(`using the Hookline runtime at ${url}`);
    return { url, key };
  }
  log(
    `no runtime found${url ? ` at ${url}` : ''} (start one with \`npm start\`); starting one in-process for this demo`,
  );
  const runtime = await startRuntime({ dataDir: mkdtempSync(join(tmpdir(), 'hookline-demo-')), port: 0 });
  return { url: runtime.url, key: runtime.adminKey, runtime };
}

const receiver = await new TestReceiver().start();
receiver.script('/orders', [], { status: 200 });
receiver.script(
  '/flaky',
  [
    { status: 503, headers: { 'retry-after': '2' } },
    { status: 500, body: 'database is restarting' },
  ],
  { status: 200 },
);
receiver.script('/broken', [], { status: 400, body: '{"error":"unknown field customerRef"}' });
log(`sample receiver listening on ${receiver.url} (verifies signatures with standardwebhooks)`);

const { url, key, runtime } = await connect();
const api = apiClient(url, key);
const run = `demo-${Date.now().toString(36)}`;
/** The demo's subscriptions belong to a tenant of their own, so the portal link it prints shows them and nothing else. */
const tenant = run;

const subscriptions: Record<string, string> = {};
/** Deletes what the demo made, once: its receiver stops with it. */
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= (async () => {
    const ids = Object.keys(subscriptions);
    for (const id of ids) {
      const res = await api
        .delete(`/v1/subscriptions/${id}`)
        .catch((error: unknown) => ({ status: 0, body: String(error) }));
      if (res.status !== 200)
        console.error(`could not delete demo subscription ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    if (ids.length) {
      console.log(
        `\nCleaned up: the demo's ${ids.length} subscriptions (description "demo ${run}: …") are deleted, as its receiver is gone.`,
      );
      console.log(
        'Their deliveries and dead letters stay readable (and the dashboard shows them) for the retention period; nothing more is sent to them.',
      );
    }
    await receiver.stop();
    await runtime?.stop();
  })());
// Ctrl+C in the middle of the demo still deletes what it made.
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

try {
  for (const [path, what] of [
    ['/orders', 'healthy endpoint'],
    ['/flaky', 'fails twice, then recovers'],
    ['/broken', 'rejects the payload (400)'],
  ] as const) {
    const res = await api.post('/v1/subscriptions', {
      url: `${receiver.url}${path}`,
      eventTypes: [`${run}.*`],
      tenantId: tenant,
      description: `demo ${run}: ${what}`,
      retryPolicy: DEMO_RETRY,
    });
    if (res.status !== 201)
      throw new Error(`could not create a subscription: ${res.status} ${JSON.stringify(res.body)}`);
    receiver.expectSecret(path, res.body.secret);
    subscriptions[res.body.id] = path;
    log(`subscription ${res.body.id} → ${path} (${what})`);
  }

  // The event is the tenant's: only that tenant's subscriptions receive it (README, "The delivery contract").
  const event = {
    id: `${run}-order-1`,
    type: `${run}.order.created`,
    tenantId: tenant,
    payload: { orderId: 1, total: '42.00' },
  };
  const published = await api.post('/v1/events', event);
  log(`POST /v1/events for tenant ${tenant} → ${published.status} ${JSON.stringify(published.body)}`);
  const again = await api.post('/v1/events', event);
  log(`same event id again → ${again.status} (idempotent: same deliveries, nothing new sent)`);

  let shown = 0;
  const deliveryIds: string[] = published.body.deliveryIds;
  const final = await waitFor(
    'every delivery to settle',
    async () => {
      for (const r of receiver.requests.slice(shown)) {
        log(
          `receiver ${r.path.padEnd(8)} got webhook-id ${r.webhookId}: signature ${r.verified ? 'valid' : 'INVALID'} → answered ${r.answeredWith}`,
        );
      }
      shown = receiver.requests.length;
      const ds = await Promise.all(deliveryIds.map(async (id) => (await api.get(`/v1/deliveries/${id}`)).body));
      return ds.every((d) => ['delivered', 'failed', 'expired'].includes(d.state)) ? ds : undefined;
    },
    60_000,
    250,
  );

  console.log('\nOutcome:');
  for (const d of final) {
    const attempts = d.attemptLog.map((a: any) => a.status ?? a.error).join(' → ');
    console.log(
      `  ${subscriptions[d.subscriptionId]!.padEnd(8)} ${d.state.padEnd(9)} after ${d.attempts} attempt(s): ${attempts}${d.lastError ? `  (${d.lastError})` : ''}`,
    );
  }
  const dead = final.find((d) => d.state === 'failed');
  console.log(`\nDead letters are kept with body, headers and every attempt: GET ${url}/v1/dead-letters`);
  // With the banner's export lines pasted (or `eval "$(npx hookline env --with-key)"`), as in the README.
  if (dead)
    console.log(
      `Replay one when the endpoint is fixed (on your own subscriptions; the demo's are deleted below):\n  curl -X POST -H "Authorization: Bearer $HOOKLINE_ADMIN_KEY" $HOOKLINE_API_URL/v1/deliveries/${dead.id}/replay\n  (or: npx hookline replay ${dead.id})`,
    );
  // The customer's view of the same deliveries: a portal link for the demo's tenant (it works once, for an hour).
  const link = await api.post(`/v1/tenants/${tenant}/portal-sessions`, {});
  if (link.status === 201) {
    console.log(
      `\nThe customer portal for tenant ${tenant} (its three endpoints, their health, the dead letter and its attempts; open it once, within the hour):\n  ${link.body.url}`,
    );
    console.log(
      `  (the operator console is ${url}/dashboard: sign in with the admin key; more links: npx hookline portal-link --tenant ${tenant})`,
    );
  } else console.error(`could not mint a portal link: ${link.status} ${JSON.stringify(link.body)}`);
  if (runtime)
    console.log(
      '(This runtime lives only as long as the demo, and the link with it; run `npm start` in another terminal to keep one up.)',
    );
  log('demo finished');
} finally {
  await cleanUp();
}

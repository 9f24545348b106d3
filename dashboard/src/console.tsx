import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerOf } from '#client/hookline-client.ts';
import { useSession } from './context.ts';
import { DeliveryTable } from './deliveries.tsx';
import { href } from './route.ts';
import { ActionError, CopyButton, ErrorNote, Loading, PageTitle, Status, TableWrap, TextField, Time } from './ui.tsx';
import { useAsync } from './use-async.ts';

type Replay = AnswerOf<'GET /v1/replays/{replayId}'>;
const REPLAYABLE = ['failed', 'expired', 'delivered'] as const;
const OPERATOR_KEY = 'hookline.operator';

export function DeadLettersPage() {
  return (
    <>
      <PageTitle>Dead letters</PageTitle>
      <p>
        Every failed and expired delivery, newest first. Open one to see its attempts and resend it; replay many at once
        from Bulk replay.
      </p>
      <DeliveryTable kind="dead-letters" />
    </>
  );
}

/** `datetime-local` values are the viewer's local time: as an ISO instant with its zone for the API. */
const toInstant = (local: string) => (local ? new Date(local).toISOString() : '');
const localInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

const criteriaText = (r: Replay) =>
  `${r.criteria.states.join(', ')} created ${new Date(r.criteria.createdFrom).toLocaleString()} – ${new Date(r.criteria.createdTo).toLocaleString()}` +
  (r.criteria.subscriptionId ? `, subscription ${r.criteria.subscriptionId}` : '') +
  (r.criteria.tenantId ? `, tenant ${r.criteria.tenantId}` : '');

function AuditLog({ version }: { readonly version: number }) {
  const { client } = useSession();
  const log = useAsync(() => client.call('GET /v1/replays', { query: { limit: 20 } }), [version]);
  if (log.error) return <ErrorNote error={log.error} onRetry={log.reload} />;
  if (!log.data) return <Loading what="the audit log" />;
  if (log.data.items.length === 0)
    return (
      <p class="note">No bulk replay yet. Preview one above: a dry run changes nothing and is recorded here too.</p>
    );
  return (
    <TableWrap label="Replay audit log">
      <table>
        <caption>Bulk replays, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Operator</th>
            <th scope="col">Kind</th>
            <th scope="col">Criteria</th>
            <th scope="col">Matched</th>
            <th scope="col">Replayed</th>
            <th scope="col">Skipped</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {log.data.items.map((r) => (
            <tr key={r.id}>
              <td>
                <Time iso={r.startedAt} />
              </td>
              <td>{r.operator}</td>
              <td>{r.dryRun ? 'dry run' : 'replay'}</td>
              <td class="wrap">{criteriaText(r)}</td>
              <td>{r.matched}</td>
              <td>{r.replayed}</td>
              <td>{r.skipped}</td>
              <td>
                {r.status}
                {r.finishedAt && (
                  <div class="small">
                    <Time iso={r.finishedAt} />
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function BulkReplayPage() {
  const { client } = useSession();
  const now = Date.now();
  const [from, setFrom] = useState(localInput(now - 24 * 3600_000));
  const [to, setTo] = useState(localInput(now + 60_000));
  const [states, setStates] = useState<string[]>(['expired', 'failed']);
  const [subscriptionId, setSubscriptionId] = useState('');
  const [tenantId, setTenantId] = useState('');
  const [operator, setOperator] = useState(() => sessionStorage.getItem(OPERATOR_KEY) ?? 'console');
  const [preview, setPreview] = useState<Replay>();
  const [running, setRunning] = useState<Replay>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);

  const body = (dryRun: boolean) => ({
    createdFrom: toInstant(from),
    createdTo: toInstant(to),
    states: states as ('failed' | 'expired' | 'delivered')[],
    ...(subscriptionId.trim() ? { subscriptionId: subscriptionId.trim() } : {}),
    ...(tenantId.trim() ? { tenantId: tenantId.trim() } : {}),
    operator: operator.trim() || 'console',
    ...(dryRun ? { dryRun: true } : {}),
  });
  // Any change to the criteria voids the preview: what is confirmed is what was counted.
  useEffect(() => setPreview(undefined), [from, to, states.join(), subscriptionId, tenantId]);

  const dryRun = async () => {
    setBusy(true);
    setError(undefined);
    setRunning(undefined);
    try {
      sessionStorage.setItem(OPERATOR_KEY, operator);
      setPreview(await client.call('POST /v1/replays', { body: body(true) }));
      setVersion((v) => v + 1);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    dialog.current?.close();
    setBusy(true);
    setError(undefined);
    try {
      let record = await client.call('POST /v1/replays', { body: body(false) });
      setRunning(record);
      setPreview(undefined);
      // The request works until its budget; the rest continues on the replay schedule: follow it.
      while (record.status === 'running') {
        await new Promise((r) => setTimeout(r, 1000));
        record = await client.call('GET /v1/replays/{replayId}', { params: { replayId: record.id } });
        setRunning(record);
      }
      setVersion((v) => v + 1);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle>Bulk replay</PageTitle>
      <p>
        Send many dead letters (or delivered deliveries) again. Preview first: a dry run counts the matches and changes
        nothing. Receivers dedupe on the webhook-id header.
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void dryRun();
        }}
      >
        <div class="field">
          <label for="replay-from">Created from</label>
          <input
            id="replay-from"
            type="datetime-local"
            required
            value={from}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="replay-to">Created to</label>
          <input
            id="replay-to"
            type="datetime-local"
            required
            value={to}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </div>
        <fieldset class="field">
          <legend>States</legend>
          {REPLAYABLE.map((st) => (
            <label key={st} class="check">
              <input
                type="checkbox"
                checked={states.includes(st)}
                onChange={(e) =>
                  setStates((prev) => (e.currentTarget.checked ? [...prev, st] : prev.filter((x) => x !== st)).sort())
                }
              />{' '}
              {st}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <TextField
            id="replay-subscription"
            label="Subscription id (optional)"
            value={subscriptionId}
            onChange={setSubscriptionId}
            placeholder="sub_…"
          />
        </div>
        <div class="field">
          <TextField id="replay-tenant" label="Tenant (optional)" value={tenantId} onChange={setTenantId} />
        </div>
        <div class="field">
          <label for="replay-operator">Your name, for the audit log</label>
          <input
            id="replay-operator"
            value={operator}
            required
            maxLength={200}
            onInput={(e) => setOperator(e.currentTarget.value)}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={busy || states.length === 0}>
            Preview (dry run)
          </button>
        </div>
      </form>
      <ActionError error={error} />
      {preview && (
        <section class="panel" aria-labelledby="preview-title">
          <h2 id="preview-title">Preview</h2>
          <p role="status">
            <strong>{preview.matched}</strong> deliveries match.
          </p>
          {preview.sample && preview.sample.length > 0 && (
            <>
              <p>For example:</p>
              <ul>
                {preview.sample.map((id) => (
                  <li key={id}>
                    <a href={href(['deliveries', id])}>{id}</a>
                  </li>
                ))}
              </ul>
            </>
          )}
          {preview.matched > 0 ? (
            <button type="button" class="primary" onClick={() => dialog.current?.showModal()}>
              Replay {preview.matched} deliveries…
            </button>
          ) : (
            <p>Nothing to replay: widen the time range or the states.</p>
          )}
        </section>
      )}
      <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text">
        <h2 id="confirm-title">Replay {preview?.matched ?? 0} deliveries?</h2>
        <p id="confirm-text">
          Each is sent again to its endpoint, spread over the replay window, and the replay is recorded in the audit log
          under “{operator}”. This cannot be undone.
        </p>
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="primary" onClick={() => void confirm()}>
            Yes, replay {preview?.matched ?? 0} deliveries
          </button>
        </div>
      </dialog>
      {running && (
        <section class="panel" aria-labelledby="progress-title">
          <h2 id="progress-title">Progress</h2>
          <label for="replay-progress">
            {running.status === 'completed' ? 'Done' : 'Replaying'}: {running.replayed} of {running.matched} replayed
            {running.skipped ? `, ${running.skipped} skipped` : ''}
          </label>
          <progress
            id="replay-progress"
            max={Math.max(1, running.matched)}
            value={running.replayed + running.skipped}
          />
          <p role="status">
            {running.status === 'completed'
              ? `Replay ${running.id} finished: ${running.replayed} deliveries are on their way again.`
              : `Replay ${running.id} is running…`}
          </p>
        </section>
      )}
      <section aria-labelledby="audit-title">
        <h2 id="audit-title">Audit log</h2>
        <AuditLog version={version} />
      </section>
    </>
  );
}

type ArchiveReport = AnswerOf<'POST /v1/archive-runs'>;
type RestoreReport = AnswerOf<'POST /v1/restores'>;

function ArchiveResult({ report }: { readonly report: ArchiveReport }) {
  if (report.kind === 'busy')
    return (
      <Status>
        Another archive run is in progress (it holds the lock). Nothing was done; try again in a few minutes.
      </Status>
    );
  return (
    <Status>
      {report.kind === 'done'
        ? 'Archive run finished: nothing archivable is left.'
        : 'Archive run stopped after one slice: more is archivable.'}{' '}
      {report.objects} objects written, {report.archived} deliveries archived, {report.kept} kept (changed since),{' '}
      {report.dropped} restored rows dropped, {report.resumed} unfinished batches resumed, {report.subscriptions}{' '}
      deleted subscriptions archived.
    </Status>
  );
}

/** One archive slice or a restore, run by the archiver function through the API (POST /v1/archive-runs, /v1/restores). */
export function ArchivePage() {
  const { client } = useSession();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [subscription, setSubscription] = useState('');
  const [archiving, setArchiving] = useState(false);
  const [archived, setArchived] = useState<ArchiveReport>();
  const [archiveError, setArchiveError] = useState<unknown>();
  const [restoring, setRestoring] = useState(false);
  const [restored, setRestored] = useState<RestoreReport>();
  const [restoreError, setRestoreError] = useState<unknown>();
  const archiveNow = async () => {
    setArchiving(true);
    setArchiveError(undefined);
    try {
      setArchived(await client.call('POST /v1/archive-runs', {}));
    } catch (e) {
      setArchived(undefined);
      setArchiveError(e);
    } finally {
      setArchiving(false);
    }
  };
  const restoreRange = async () => {
    setRestoring(true);
    setRestoreError(undefined);
    try {
      setRestored(
        await client.call('POST /v1/restores', {
          body: { from, to: to || from, ...(subscription.trim() ? { subscriptionId: subscription.trim() } : {}) },
        }),
      );
    } catch (e) {
      setRestored(undefined);
      setRestoreError(e);
    } finally {
      setRestoring(false);
    }
  };
  const restore = `npx hookline restore --from ${from || 'YYYY-MM-DD'} --to ${to || from || 'YYYY-MM-DD'}${subscription.trim() ? ` --subscription ${subscription.trim()}` : ''}`;
  return (
    <>
      <PageTitle>Archive and restore</PageTitle>
      <p>
        Dead letters are archived to S3 after 90 days (the daily schedule); delivered deliveries are deleted by DynamoDB
        TTL after 30, unless the stack archives them too (<code>archiveDelivered</code>). Both jobs below are run by the
        archiver function, which alone may read and write the archive bucket; a long backlog is easier from the command
        line (add <code>--aws</code> for the deployed stack).
      </p>
      <section class="panel" aria-labelledby="archive-title">
        <h2 id="archive-title">Archive now</h2>
        <p>One slice of what the daily schedule does (at most 20 objects per run).</p>
        <div class="actions">
          <button type="button" disabled={archiving} onClick={() => void archiveNow()}>
            {archiving ? 'Archiving…' : archived?.kind === 'partial' ? 'Run again' : 'Archive now'}
          </button>
        </div>
        {archived && <ArchiveResult report={archived} />}
        <ActionError error={archiveError} />
        <p>Or from the command line, with progress:</p>
        <pre class="command">npx hookline archive run</pre>
        <CopyButton text="npx hookline archive run" label="Copy command" />
      </section>
      <section class="panel" aria-labelledby="restore-title">
        <h2 id="restore-title">Restore for a dispute</h2>
        <form
          class="form"
          onSubmit={(e) => {
            e.preventDefault();
            void restoreRange();
          }}
        >
          <div class="field">
            <label for="restore-from">First day (UTC)</label>
            <input
              id="restore-from"
              type="date"
              required
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="restore-to">Last day (UTC)</label>
            <input id="restore-to" type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          </div>
          <div class="field">
            <TextField
              id="restore-subscription"
              label="Subscription id (optional)"
              value={subscription}
              onChange={setSubscription}
              placeholder="sub_…"
            />
          </div>
          <div class="actions">
            <button type="submit" disabled={restoring}>
              {restoring ? 'Restoring…' : 'Restore'}
            </button>
          </div>
        </form>
        {restored && (
          <Status>
            Restored {restored.restored} deliveries from {restored.objects} archive objects over {restored.days} days (
            {restored.present} were already present). They stay until {new Date(restored.until).toLocaleString()}.
          </Status>
        )}
        <ActionError error={restoreError} />
        <p>Or from the command line:</p>
        <pre class="command">{restore}</pre>
        <CopyButton text={restore} label="Copy command" />
        <p>Restored deliveries show here again (and can be replayed) for 7 days.</p>
      </section>
    </>
  );
}

/** The local mail catcher's notice emails (GET /v1/mail); on AWS the API says they are not kept. */
export function MailPage() {
  const { client } = useSession();
  const mail = useAsync(() => client.call('GET /v1/mail', { query: { limit: 50 } }), []);
  return (
    <>
      <PageTitle>Notice emails</PageTitle>
      <p>
        The failure notices Hookline sent to subscription owners, newest first, as the local mail catcher kept them.
      </p>
      {mail.error ? (
        <ErrorNote error={mail.error} onRetry={mail.reload} />
      ) : !mail.data ? (
        <Loading what="the notice emails" />
      ) : !mail.data.kept ? (
        <p class="note">{mail.data.note}</p>
      ) : mail.data.items.length === 0 ? (
        <p class="note">No notice email yet.</p>
      ) : (
        <ul class="mail-list">
          {mail.data.items.map((m) => (
            <li key={m.id}>
              <details>
                <summary>
                  <strong>{m.subject}</strong> to {m.to.join(', ')}, <Time iso={m.receivedAt} />
                </summary>
                <pre class="mail-text">{m.text}</pre>
              </details>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const LIFETIMES = [
  [900, '15 minutes'],
  [3600, '1 hour'],
  [4 * 3600, '4 hours'],
  [86_400, '24 hours'],
] as const;

export function PortalLinksPage() {
  const { client } = useSession();
  const [tenant, setTenant] = useState('');
  const [subscription, setSubscription] = useState('');
  const [lifetime, setLifetime] = useState(3600);
  const [access, setAccess] = useState<'view' | 'manage'>('view');
  const [minted, setMinted] = useState<AnswerOf<'POST /v1/tenants/{tenantId}/portal-sessions'>>();
  const [revoked, setRevoked] = useState('');
  const [error, setError] = useState<unknown>();
  const mint = async () => {
    setError(undefined);
    setRevoked('');
    try {
      setMinted(
        await client.call('POST /v1/tenants/{tenantId}/portal-sessions', {
          params: { tenantId: tenant.trim() },
          body: {
            expiresInSeconds: lifetime,
            access,
            ...(subscription.trim() ? { subscriptionId: subscription.trim() } : {}),
          },
        }),
      );
    } catch (e) {
      setError(e);
    }
  };
  const revoke = async () => {
    if (!minted) return;
    setError(undefined);
    try {
      const r = await client.call('DELETE /v1/tenants/{tenantId}/portal-sessions/{sessionId}', {
        params: { tenantId: minted.tenantId, sessionId: minted.id },
      });
      setRevoked(
        `Revoked at ${new Date(r.revokedAt ?? Date.now()).toLocaleString()}: the link and any session opened with it no longer work.`,
      );
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <PageTitle>Customer portal links</PageTitle>
      <p>
        A link shows one tenant its own subscriptions and deliveries (or one subscription) and lets them resend, pause,
        resume and send test events; a link with access to manage also lets them add, change, delete and re-key their
        own endpoints. It works once and for a limited time. Your backend mints them with{' '}
        <code>POST /v1/tenants/{'{tenantId}'}/portal-sessions</code>;{' '}
        <code>npx hookline portal-link --tenant &lt;id&gt;</code> prints one.
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void mint();
        }}
      >
        <div class="field">
          <TextField id="link-tenant" label="Tenant" value={tenant} onChange={setTenant} required />
        </div>
        <div class="field">
          <TextField
            id="link-subscription"
            label="Only this subscription (optional)"
            value={subscription}
            onChange={setSubscription}
            placeholder="sub_…"
          />
        </div>
        <div class="field">
          <label for="link-lifetime">Valid for</label>
          <select
            id="link-lifetime"
            value={String(lifetime)}
            onChange={(e) => setLifetime(Number(e.currentTarget.value))}
          >
            {LIFETIMES.map(([seconds, text]) => (
              <option key={seconds} value={String(seconds)}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="link-access">Access</label>
          <span id="link-access-hint" class="muted small">
            view: read, resend, retry now, pause, resume, test. manage: also add, change, delete and rotate their
            endpoints.
          </span>
          <select
            id="link-access"
            value={access}
            aria-describedby="link-access-hint"
            onChange={(e) => setAccess(e.currentTarget.value === 'manage' ? 'manage' : 'view')}
          >
            <option value="view">view</option>
            <option value="manage">manage</option>
          </select>
        </div>
        <div class="actions">
          <button type="submit">Create link</button>
        </div>
      </form>
      <ActionError error={error} />
      {minted && (
        <section class="panel" aria-labelledby="minted-title">
          <h2 id="minted-title">Link for {minted.tenantId}</h2>
          <p>
            Valid until <Time iso={minted.expiresAt} />
            {minted.subscriptionId ? `, for ${minted.subscriptionId} only` : ''}, access {minted.access}. Send it to the
            customer; it is shown only now. Opening it here would end this console session in this tab.
          </p>
          <pre class="command" role="region" tabIndex={0} aria-label="Portal link">
            {minted.url}
          </pre>
          <CopyButton text={minted.url} label="Copy link" />{' '}
          <button type="button" onClick={() => void revoke()}>
            Revoke this link
          </button>
          {revoked && <Status>{revoked}</Status>}
        </section>
      )}
    </>
  );
}

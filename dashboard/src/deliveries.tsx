import { useEffect, useState } from 'preact/hooks';
import type { AnswerOf, ItemOf } from '#client/hookline-client.ts';
import { useSession } from './context.ts';
import { href } from './route.ts';
import {
  ActionError,
  CopyButton,
  ErrorNote,
  Loading,
  PageTitle,
  pretty,
  StateBadge,
  Status,
  TableWrap,
  Time,
} from './ui.tsx';
import { useAsync } from './use-async.ts';

type Delivery = ItemOf<'GET /v1/deliveries'>;
type Detail = AnswerOf<'GET /v1/deliveries/{deliveryId}'>;
type Attempt = Detail['attemptLog'][number];

const RESENDABLE = new Set(['failed', 'expired', 'delivered']);
const FINISHED = new Set(['failed', 'expired', 'delivered']);

/**
 * "after 1 attempt" counts the current run (it restarts at a resend); the attempt log shows every
 * run, so a resent delivery says both, never one attempt above two rows.
 */
function attemptsSaid(d: Detail): string {
  const inAll = d.attemptLog.at(-1)?.seq ?? d.attempts;
  const run = `after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  return inAll > d.attempts ? `${run} since it was resent (${inAll} in all)` : run;
}

/** A subscription's deliveries (by state) or dead letters (one subscription's, or every one for the operator), newest first, a page at a time. */
export function DeliveryTable(props: {
  readonly kind: 'deliveries' | 'dead-letters';
  readonly subscriptionId?: string;
  readonly state?: string;
}) {
  const { client } = useSession();
  const [items, setItems] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [want, setWant] = useState(0);
  const page = useAsync(async () => {
    const query = { limit: 25, ...(want > 0 && cursor ? { cursor } : {}) };
    return props.kind === 'deliveries'
      ? client.call('GET /v1/deliveries', {
          query: { ...query, subscriptionId: props.subscriptionId!, ...(props.state ? { state: props.state } : {}) },
        })
      : client.call('GET /v1/dead-letters', {
          query: { ...query, ...(props.subscriptionId ? { subscriptionId: props.subscriptionId } : {}) },
        });
  }, [want]);
  useEffect(() => {
    if (!page.data) return;
    setItems((prev) => (want === 0 ? [...page.data!.items] : [...prev, ...page.data!.items]));
    setCursor(page.data.nextCursor);
  }, [page.data]);

  if (page.error) return <ErrorNote error={page.error} onRetry={page.reload} />;
  if (!page.data && items.length === 0)
    return <Loading what={props.kind === 'deliveries' ? 'deliveries' : 'dead letters'} />;
  if (items.length === 0) {
    return (
      <div class="note">
        {props.kind === 'dead-letters' ? (
          <p>No dead letters: every delivery was delivered or is still being tried. Nothing to do.</p>
        ) : props.state ? (
          <p>No {props.state.replace('_', ' ')} deliveries. Choose another state, or "any state".</p>
        ) : (
          <p>
            No deliveries yet. They appear here as soon as an event for this endpoint is published; "Send a test event"
            sends one now.
          </p>
        )}
      </div>
    );
  }
  const overall = props.kind === 'dead-letters' && !props.subscriptionId;
  return (
    <>
      <TableWrap label={props.kind === 'deliveries' ? 'Deliveries' : 'Dead letters'}>
        <table>
          <caption>
            {props.kind === 'deliveries'
              ? `Deliveries${props.state ? ` in state ${props.state.replace('_', ' ')}` : ''}, newest first`
              : 'Dead letters, newest first'}
          </caption>
          <thead>
            <tr>
              {/* What a person scans for first (state, status, when) comes before the long ids. */}
              <th scope="col">Delivery</th>
              {overall && <th scope="col">Subscription</th>}
              <th scope="col">State</th>
              <th scope="col">Last status</th>
              <th scope="col">Attempts</th>
              <th scope="col">{props.kind === 'dead-letters' ? 'Dead-lettered' : 'Updated'}</th>
              <th scope="col">Event</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td class="id">
                  <a href={href(['deliveries', d.id])}>{d.id}</a>
                </td>
                {overall && (
                  <td>
                    <a href={href(['subscriptions', d.subscriptionId])}>{d.subscriptionId}</a>
                  </td>
                )}
                <td>
                  <StateBadge state={d.state} />
                </td>
                <td>{d.lastStatus ?? (d.lastError ? <span class="small">{d.lastError}</span> : '–')}</td>
                <td>{d.attempts}</td>
                <td>
                  <Time iso={d.updatedAt} />
                </td>
                <td class="id">
                  <a href={href(['events', d.eventId])}>{d.eventId}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {cursor && (
        <button type="button" disabled={page.loading} onClick={() => setWant((w) => w + 1)}>
          Load more
        </button>
      )}
    </>
  );
}

function AttemptRows({ attempts }: { readonly attempts: readonly Attempt[] }) {
  return (
    <>
      {attempts.map((a) => (
        <tr key={a.seq}>
          <td>{a.seq}</td>
          <td>
            <Time iso={a.startedAt} />
          </td>
          <td>{Math.round(a.durationMs)} ms</td>
          <td>{a.status ?? '–'}</td>
          <td>{a.responseSnippet ? <pre class="snippet">{a.responseSnippet}</pre> : <span class="muted">–</span>}</td>
          <td>{a.error ?? <span class="muted">–</span>}</td>
        </tr>
      ))}
    </>
  );
}

/** Resend, then follow the delivery until it settles again (a second a poll, for a minute). */
function Resend({ detail, onChanged }: { readonly detail: Detail; readonly onChanged: () => void }) {
  const { client } = useSession();
  const [error, setError] = useState<unknown>();
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const resend = async () => {
    setBusy(true);
    setError(undefined);
    setSaid('');
    try {
      await client.call('POST /v1/deliveries/{deliveryId}/replay', { params: { deliveryId: detail.id } });
      setSaid('Resent: it is pending again and will be attempted in a moment.');
      onChanged();
      for (let i = 0; i < 60; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        const now = await client.call('GET /v1/deliveries/{deliveryId}', { params: { deliveryId: detail.id } });
        if (FINISHED.has(now.state)) {
          setSaid(
            now.state === 'delivered'
              ? 'Resent and delivered.'
              : `Resent; it ended ${now.state} again: see the newest attempt below.`,
          );
          break;
        }
      }
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const resendable = RESENDABLE.has(detail.state);
  return (
    <div class="actions">
      <button type="button" class="primary" disabled={busy || !resendable} onClick={() => void resend()}>
        Resend
      </button>
      {!resendable && !busy && <span class="muted">It can be resent once it is delivered, failed or expired.</span>}
      {said && <Status>{said}</Status>}
      <ActionError error={error} />
    </div>
  );
}

export function DeliveryPage({ id }: { readonly id: string }) {
  const { client } = useSession();
  const detail = useAsync(() => client.call('GET /v1/deliveries/{deliveryId}', { params: { deliveryId: id } }), [id]);
  const [earlier, setEarlier] = useState<Attempt[]>([]);
  const [earlierCursor, setEarlierCursor] = useState<string | null | undefined>(undefined);
  const [earlierError, setEarlierError] = useState<unknown>();
  if (detail.error) return <ErrorNote error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return <Loading what="the delivery" />;
  const d = detail.data;
  const next = earlierCursor === undefined ? d.attemptLogNextCursor : earlierCursor;
  const loadEarlier = async () => {
    if (!next) return;
    try {
      const page = await client.call('GET /v1/deliveries/{deliveryId}/attempts', {
        params: { deliveryId: id },
        query: { cursor: next, limit: 50 },
      });
      setEarlier((prev) => [...page.items, ...prev]);
      setEarlierCursor(page.nextCursor);
    } catch (e) {
      setEarlierError(e);
    }
  };
  const body = pretty(d.body);
  return (
    <>
      <p class="crumbs">
        <a href={href(['subscriptions', d.subscriptionId])}>Subscription {d.subscriptionId}</a> /
      </p>
      <PageTitle>
        Delivery <code>{d.id}</code>
      </PageTitle>
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd>
            <StateBadge state={d.state} /> {attemptsSaid(d)}
          </dd>
        </div>
        <div>
          <dt>Event</dt>
          <dd class="wrap">
            <a href={href(['events', d.eventId])}>{d.eventId}</a>
          </dd>
        </div>
        <div>
          <dt>Endpoint</dt>
          <dd class="wrap">{d.url}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={d.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>
            <Time iso={d.updatedAt} />
          </dd>
        </div>
        {d.nextAttemptAt && (
          <div>
            <dt>Next attempt</dt>
            <dd>
              <Time iso={d.nextAttemptAt} />
            </dd>
          </div>
        )}
        {!FINISHED.has(d.state) && (
          <div>
            <dt>Gives up at</dt>
            <dd>
              <Time iso={d.giveUpAt} />
            </dd>
          </div>
        )}
        {(d.lastStatus !== null || d.lastError) && (
          <div>
            <dt>Last result</dt>
            <dd>{d.lastStatus !== null ? `HTTP ${d.lastStatus}` : d.lastError}</dd>
          </div>
        )}
      </dl>
      <Resend detail={d} onChanged={detail.reload} />
      <section class="panel" aria-labelledby="body-title">
        <h2 id="body-title">Request body</h2>
        {d.body === null ? (
          <p class="muted">The body is no longer kept (the event passed its retention).</p>
        ) : (
          <>
            <CopyButton text={d.body} label="Copy body" />
            <pre class="body" role="region" tabIndex={0} aria-label="Request body text">
              {body}
            </pre>
          </>
        )}
      </section>
      <section class="panel" aria-labelledby="headers-title">
        <h2 id="headers-title">Request headers</h2>
        <TableWrap label="Request headers">
          <table>
            <caption class="sr-only">Headers sent with the request</caption>
            <thead>
              <tr>
                <th scope="col">Header</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(d.headers).map(([name, value]) => (
                <tr key={name}>
                  <td>
                    <code>{name}</code>
                  </td>
                  <td class="wrap">
                    <code>{value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </section>
      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">Attempts</h2>
        {d.attemptLog.length === 0 && earlier.length === 0 ? (
          <p class="note">
            No attempt yet: the first one is made within seconds of publishing (or once the subscription is resumed).
          </p>
        ) : (
          <TableWrap label="Attempts">
            <table>
              <caption>Every attempt, oldest first (responses up to 512 bytes)</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Status</th>
                  <th scope="col">Response</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                <AttemptRows attempts={earlier} />
                <AttemptRows attempts={d.attemptLog} />
              </tbody>
            </table>
          </TableWrap>
        )}
        {next && (
          <button type="button" onClick={() => void loadEarlier()}>
            Show earlier attempts
          </button>
        )}
        <ActionError error={earlierError} />
      </section>
    </>
  );
}

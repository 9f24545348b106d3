import { useState } from 'preact/hooks';
import type { AnswerOf, ItemOf } from '#client/hookline-client.ts';
import { isOperator, mayCreate, mayManage, useSession } from './context.ts';
import { endpointName, ManageEndpoint, TestEventForm } from './endpoint-actions.tsx';
import { EndpointForm } from './endpoint-form.tsx';
import { FailingBadge, HealthCells, HealthPanel, useStats } from './health.tsx';
import { href, navigate, type Route } from './route.ts';
import {
  ActionError,
  CopyButton,
  ErrorNote,
  Loading,
  PageTitle,
  StateBadge,
  Status,
  TableWrap,
  TextField,
  Time,
} from './ui.tsx';
import { useAsync } from './use-async.ts';
import { ContractText } from './contract.tsx';
import { retryWords } from './contract-model.ts';
import { DeliveryList, DeliveryTable, filterFromRoute, filterQuery } from './deliveries.tsx';

type Subscription = ItemOf<'GET /v1/subscriptions'>;

const nameOf = endpointName;

export function SubscriptionsPage({ route }: { readonly route: Route }) {
  const session = useSession();
  const operator = isOperator(session);
  const tenant = route.query.get('tenant') ?? '';
  const [pages, setPages] = useState<string[]>([]);
  const list = useAsync(async () => {
    const items: Subscription[] = [];
    let cursor: string | undefined;
    // The first page, plus each page the person asked for with "Load more".
    for (let i = 0; i <= pages.length; i++) {
      const page = await session.client.call('GET /v1/subscriptions', {
        query: { limit: 25, ...(operator && tenant ? { tenantId: tenant } : {}), ...(cursor ? { cursor } : {}) },
      });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      if (!cursor) break;
    }
    // By name, as a person looks for one (the API pages in its own order).
    items.sort((a, b) => nameOf(a).localeCompare(nameOf(b), undefined, { numeric: true }) || a.id.localeCompare(b.id));
    return { items, more: cursor !== undefined };
  }, [tenant, pages.length]);
  const [filter, setFilter] = useState(tenant);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<AnswerOf<'POST /v1/subscriptions'>>();
  const manage = mayCreate(session);

  return (
    <>
      <PageTitle>Subscriptions</PageTitle>
      {operator ? (
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setPages([]);
            navigate(href(['subscriptions'], { tenant: filter.trim() }));
          }}
        >
          <TextField id="tenant-filter" label="Tenant" value={filter} onChange={setFilter} placeholder="every tenant" />
          <button type="submit">Filter</button>
          {tenant && (
            <a href={href(['subscriptions'])} onClick={() => setFilter('')}>
              Show every tenant
            </a>
          )}
        </form>
      ) : (
        <p>
          Your webhook endpoints and how they did over the last 24 hours. Open one to see its deliveries, resend them,
          or pause it{mayManage(session) ? ', change it, rotate its secret or delete it' : ''}.
        </p>
      )}
      {manage && !adding && (
        <p>
          <button type="button" class="primary" onClick={() => (setAdding(true), setCreated(undefined))}>
            New endpoint
          </button>
        </p>
      )}
      {adding && (
        <section class="panel" aria-labelledby="new-title">
          <h2 id="new-title">New endpoint</h2>
          <EndpointForm
            onSaved={(saved) => {
              setAdding(false);
              setCreated(saved as AnswerOf<'POST /v1/subscriptions'>);
              list.reload();
            }}
            onCancel={() => setAdding(false)}
          />
        </section>
      )}
      {created && <CreatedNote created={created} />}
      {list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="subscriptions" />
      ) : list.data.items.length === 0 ? (
        <div class="note">
          {operator ? (
            <p>
              No subscriptions{tenant ? ` for tenant ${tenant}` : ''} yet. Create one with{' '}
              <code>POST /v1/subscriptions</code> or <code>npx hookline subscriptions create --url https://…</code>
              {tenant ? ', or clear the tenant filter' : ''}.
            </p>
          ) : manage ? (
            <p>There are no webhook endpoints set up for you yet. Add one with New endpoint.</p>
          ) : (
            <p>There are no webhook endpoints set up for you yet. Ask the team that sends you webhooks to add one.</p>
          )}
        </div>
      ) : (
        <>
          <TableWrap label="Subscriptions">
            <table>
              <caption>Subscriptions with their health over the last 24 hours</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  {operator && <th scope="col">Tenant</th>}
                  <th scope="col">State</th>
                  <th scope="col">Success rate</th>
                  <th scope="col">Latency avg / p95</th>
                  <th scope="col">Last failure</th>
                  <th scope="col">Failing since</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={href(['subscriptions', s.id])}>{nameOf(s)}</a>
                      <div class="muted small">{s.id}</div>
                    </td>
                    {operator && <td>{s.tenantId ?? <span class="muted">none</span>}</td>}
                    <td>
                      <StateBadge state={s.state} />
                      {s.stateReason && s.state !== 'active' && <div class="small">{s.stateReason}</div>}
                    </td>
                    <HealthCells subscriptionId={s.id} />
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {list.data.more && (
            <button type="button" onClick={() => setPages((p) => [...p, 'more'])}>
              Load more subscriptions
            </button>
          )}
        </>
      )}
      {!operator && (
        <section class="panel" aria-labelledby="contract-title">
          <h2 id="contract-title">How delivery works</h2>
          <ContractText />
        </section>
      )}
    </>
  );
}

/** A new endpoint's signing secret, shown here once (it can be revealed again on the endpoint's page). */
function CreatedNote({ created }: { readonly created: AnswerOf<'POST /v1/subscriptions'> }) {
  const secret = created.secret ?? created.publicKey;
  return (
    <div class="note" role="status">
      <p>
        Created <a href={href(['subscriptions', created.id])}>{nameOf(created)}</a>.
      </p>
      {secret && (
        <p>
          Its signing secret: <code class="secret">{secret}</code> <CopyButton text={secret} label="Copy secret" />
        </p>
      )}
    </div>
  );
}

/** Pause (with a reason) and resume. */
function StateActions({
  subscription,
  onChanged,
}: {
  readonly subscription: AnswerOf<'GET /v1/subscriptions/{subscriptionId}'>;
  readonly onChanged: () => void;
}) {
  const { client } = useSession();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [said, setSaid] = useState('');
  const params = { subscriptionId: subscription.id };
  const act = async (what: 'pause' | 'resume') => {
    setBusy(true);
    setError(undefined);
    try {
      if (what === 'pause') {
        await client.call('POST /v1/subscriptions/{subscriptionId}/pause', {
          params,
          ...(reason.trim() ? { body: { reason: reason.trim() } } : {}),
        });
        setSaid('Paused: new events wait here until you resume.');
      } else {
        const r = await client.call('POST /v1/subscriptions/{subscriptionId}/resume', { params });
        setSaid(`Resumed: ${r.drained} waiting deliveries are on their way.`);
      }
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (subscription.state === 'deleted')
    return <p class="note">This subscription was deleted: nothing more is sent to it.</p>;
  return (
    <section class="panel" aria-labelledby="state-title">
      <h2 id="state-title">Sending</h2>
      {subscription.state === 'active' ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void act('pause');
          }}
        >
          <label for="pause-reason">Reason for pausing (optional)</label>
          <input
            id="pause-reason"
            value={reason}
            maxLength={500}
            onInput={(e) => setReason(e.currentTarget.value)}
            placeholder="e.g. endpoint maintenance"
          />
          <button type="submit" disabled={busy}>
            Pause deliveries
          </button>
        </form>
      ) : (
        <div class="inline-form">
          <p>
            Paused or disabled: events are kept and wait.{' '}
            {subscription.stateReason && <>Reason: {subscription.stateReason}.</>}
          </p>
          <button type="button" disabled={busy} onClick={() => void act('resume')}>
            Resume deliveries
          </button>
        </div>
      )}
      {said && <Status>{said}</Status>}
      <ActionError error={error} />
    </section>
  );
}

/** The signing secret, shown only when asked for and hidden again on request. */
function SecretPanel({ subscriptionId }: { readonly subscriptionId: string }) {
  const { client } = useSession();
  const [secrets, setSecrets] = useState<AnswerOf<'GET /v1/subscriptions/{subscriptionId}/secret'>>();
  const [error, setError] = useState<unknown>();
  const reveal = async () => {
    setError(undefined);
    try {
      setSecrets(await client.call('GET /v1/subscriptions/{subscriptionId}/secret', { params: { subscriptionId } }));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="panel" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>Verify every webhook's signature with it (Standard Webhooks: the standardwebhooks library on the raw body).</p>
      {secrets ? (
        <>
          <ul class="secrets">
            {secrets.secrets.map((s) => (
              <li key={s.secret ?? s.publicKey}>
                <code class="secret">{s.secret ?? s.publicKey}</code>{' '}
                <CopyButton text={s.secret ?? s.publicKey ?? ''} label="Copy secret" />{' '}
                <span class="muted">
                  {s.expiresAt ? (
                    <>
                      signs until <Time iso={s.expiresAt} />
                    </>
                  ) : (
                    'signs until the next rotation'
                  )}
                </span>
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => setSecrets(undefined)}>
            Hide secret
          </button>
        </>
      ) : (
        <button type="button" onClick={() => void reveal()}>
          Reveal signing secret
        </button>
      )}
      <ActionError error={error} />
    </section>
  );
}

export function SubscriptionPage({ id, route }: { readonly id: string; readonly route: Route }) {
  const session = useSession();
  const sub = useAsync(
    () => session.client.call('GET /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: id } }),
    [id],
  );
  const stats = useStats(id);
  const tab = route.query.get('tab') === 'dead-letters' ? 'dead-letters' : 'deliveries';
  if (sub.error) return <ErrorNote error={sub.error} onRetry={sub.reload} />;
  if (!sub.data) return <Loading what="the subscription" />;
  const s = sub.data;
  const refresh = () => {
    sub.reload();
    stats.reload();
  };
  return (
    <>
      <p class="crumbs">
        <a href={href(['subscriptions'])}>Subscriptions</a> /
      </p>
      <PageTitle>{s.description ?? 'Subscription'}</PageTitle>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{s.id}</code>
          </dd>
        </div>
        <div>
          <dt>Endpoint</dt>
          <dd class="wrap">{s.url}</dd>
        </div>
        <div>
          <dt>Event types</dt>
          <dd>{s.eventTypes.join(', ')}</dd>
        </div>
        <div>
          <dt>Retries</dt>
          <dd>
            {s.retryPolicy ? (
              <>its own policy: {retryWords(s.retryPolicy)}</>
            ) : (
              <>
                the deployment's default (<a href={href(['contract'])}>How delivery works</a>)
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>
            <StateBadge state={s.state} /> {s.stateReason && <span>{s.stateReason}</span>}{' '}
            <span class="muted">since</span> <Time iso={s.stateChangedAt} /> <FailingBadge stats={stats.data} />
          </dd>
        </div>
      </dl>
      {stats.error ? (
        <ErrorNote error={stats.error} onRetry={stats.reload} />
      ) : stats.data ? (
        <HealthPanel stats={stats.data} />
      ) : (
        <Loading what="health" />
      )}
      <StateActions subscription={s} onChanged={refresh} />
      <ManageEndpoint subscription={s} onChanged={refresh} />
      <SecretPanel subscriptionId={s.id} />
      <TestEventForm subscription={s} />
      <nav class="tabs" aria-label="Deliveries of this subscription">
        <a
          href={href(['subscriptions', id], filterQuery(filterFromRoute(route.query)))}
          aria-current={tab === 'deliveries' ? 'page' : undefined}
        >
          Deliveries
        </a>
        <a
          href={href(['subscriptions', id], { tab: 'dead-letters' })}
          aria-current={tab === 'dead-letters' ? 'page' : undefined}
        >
          Dead letters
        </a>
      </nav>
      {tab === 'deliveries' ? (
        <section aria-labelledby="deliveries-title">
          <h2 id="deliveries-title">Deliveries</h2>
          <DeliveryList subscriptionId={id} path={['subscriptions', id]} route={route} eventTypes={s.eventTypes} />
        </section>
      ) : (
        <section aria-labelledby="dead-title">
          <h2 id="dead-title">Dead letters, newest first</h2>
          <DeliveryTable key="dl" kind="dead-letters" subscriptionId={id} />
        </section>
      )}
    </>
  );
}

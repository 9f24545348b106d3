import { useState } from 'preact/hooks';
import type { AnswerOf, ItemOf } from '#client/hookline-client.ts';
import { isOperator, useSession } from './context.ts';
import { href, navigate, type Route } from './route.ts';
import { ErrorNote, Loading, PageTitle, StateBadge, TableWrap, TextField, Time } from './ui.tsx';
import { useAsync } from './use-async.ts';

type EventSummary = ItemOf<'GET /v1/events'>;
type EventDetail = AnswerOf<'GET /v1/events/{eventId}'>;

/** Who an event was published for, in words: its tenant, every tenant, or the producer's own subscriptions. */
export function AudienceText({ event }: { readonly event: Pick<EventSummary, 'tenantId' | 'audience'> }) {
  if (event.audience === 'all') return <span>every tenant</span>;
  return event.tenantId ? <span>{event.tenantId}</span> : <span class="muted">no tenant</span>;
}

/** The operator's event log, newest first, by tenant and type (GET /v1/events). */
export function EventsPage({ route }: { readonly route: Route }) {
  const { client } = useSession();
  const tenant = route.query.get('tenant') ?? '';
  const type = route.query.get('type') ?? '';
  const [pages, setPages] = useState(0);
  const [tenantInput, setTenantInput] = useState(tenant);
  const [typeInput, setTypeInput] = useState(type);
  const list = useAsync(async () => {
    const items: EventSummary[] = [];
    let cursor: string | undefined;
    // A filtered page can be short (the log is read in time order): follow the cursor as far as asked.
    for (let i = 0; i <= pages; i++) {
      const page = await client.call('GET /v1/events', {
        query: {
          limit: 25,
          ...(tenant ? { tenantId: tenant } : {}),
          ...(type ? { type } : {}),
          ...(cursor ? { cursor } : {}),
        },
      });
      items.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return { items, more: cursor !== undefined };
  }, [tenant, type, pages]);

  return (
    <>
      <PageTitle>Events</PageTitle>
      <p>
        Every published event, newest first, with who it was for. An event reaches its tenant's subscriptions only; open
        one to see its payload and where it went.
      </p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPages(0);
          navigate(href(['events'], { tenant: tenantInput.trim(), type: typeInput.trim() }));
        }}
      >
        <TextField id="event-tenant" label="Tenant" value={tenantInput} onChange={setTenantInput} placeholder="any" />
        <TextField
          id="event-type"
          label="Type"
          value={typeInput}
          onChange={setTypeInput}
          placeholder="any, e.g. invoice.paid"
        />
        <button type="submit">Filter</button>
        {(tenant || type) && (
          <a href={href(['events'])} onClick={() => (setTenantInput(''), setTypeInput(''))}>
            Show every event
          </a>
        )}
      </form>
      {list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="events" />
      ) : list.data.items.length === 0 && !list.data.more ? (
        <p class="note">
          No events{tenant ? ` for tenant ${tenant}` : ''}
          {type ? ` of type ${type}` : ''} yet.
        </p>
      ) : (
        <>
          <TableWrap label="Events">
            <table>
              <caption>Published events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">For</th>
                  <th scope="col">Created</th>
                  <th scope="col">Deliveries</th>
                  <th scope="col">Event id</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <a href={href(['events', e.id])}>{e.type}</a>
                    </td>
                    <td>
                      <AudienceText event={e} />
                    </td>
                    <td>
                      <Time iso={e.createdAt} />
                    </td>
                    <td>{e.deliveries}</td>
                    <td class="wrap small">{e.id}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {list.data.more && (
            <button type="button" onClick={() => setPages((p) => p + 1)}>
              Load more events
            </button>
          )}
        </>
      )}
    </>
  );
}

/** One event: who it was for, its payload, and its delivery to each subscription the caller may see (GET /v1/events/{eventId}). */
export function EventPage({ id }: { readonly id: string }) {
  const session = useSession();
  const event = useAsync(() => session.client.call('GET /v1/events/{eventId}', { params: { eventId: id } }), [id]);
  if (event.error) return <ErrorNote error={event.error} onRetry={event.reload} />;
  if (!event.data) return <Loading what={`event ${id}`} />;
  const e: EventDetail = event.data;
  return (
    <>
      <PageTitle>{e.type}</PageTitle>
      <dl class="facts">
        <div>
          <dt>Event id</dt>
          <dd class="wrap">{e.id}</dd>
        </div>
        <div>
          <dt>Published for</dt>
          <dd>
            <AudienceText event={e} />
            {e.narrowedTo && <div class="small">only {e.narrowedTo.join(', ')}</div>}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={e.createdAt} />
          </dd>
        </div>
      </dl>
      <section class="panel" aria-labelledby="event-deliveries">
        <h2 id="event-deliveries">Deliveries</h2>
        {e.deliveries.length === 0 ? (
          <p class="note">
            {isOperator(session)
              ? 'No subscription of its audience took this type when it was published.'
              : 'None of your endpoints took this event.'}
          </p>
        ) : (
          <TableWrap label="Event deliveries">
            <table>
              <caption>One delivery per subscription</caption>
              <thead>
                <tr>
                  <th scope="col">Subscription</th>
                  <th scope="col">State</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last status</th>
                </tr>
              </thead>
              <tbody>
                {e.deliveries.map((d) => (
                  <tr key={d.deliveryId}>
                    <td>
                      <a href={href(['deliveries', d.deliveryId])}>{d.subscriptionId}</a>
                    </td>
                    <td>
                      <StateBadge state={d.state} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.lastStatus ?? <span class="muted">–</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </section>
      <section class="panel" aria-labelledby="event-payload">
        <h2 id="event-payload">Payload</h2>
        <pre class="body" role="region" tabIndex={0} aria-label="Event payload">
          {JSON.stringify(e.payload, null, 2)}
        </pre>
      </section>
    </>
  );
}

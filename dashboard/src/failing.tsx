import type { ItemOf } from '#client/hookline-client.ts';
import { failingNow, longestFailingFirst } from '#domain/failing-now.ts';
import { useSession } from './context.ts';
import { endpointName } from './endpoint-actions.tsx';
import { href } from './route.ts';
import { ErrorNote, Loading, PageTitle, RelativeTime, StateBadge, TableWrap } from './ui.tsx';
import { useAsync } from './use-async.ts';

type Subscription = ItemOf<'GET /v1/subscriptions'>;

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * Every subscription failing now, across every tenant, longest failing first: the API keeps the
 * failing ones of each page it reads (`failing=true`), and this reads every page, so nothing
 * past the first page is missed. What counts as failing is domain/failing-now.ts, the same rule
 * as a subscription's own Dead-lettering figure.
 */
export function FailingNowPage() {
  const { client } = useSession();
  const list = useAsync(async () => {
    const items: Subscription[] = [];
    for await (const s of client.paginate('GET /v1/subscriptions', { query: { failing: true, limit: 100 } }))
      items.push(s);
    return items.sort(longestFailingFirst);
  }, []);

  return (
    <>
      <PageTitle>Failing now</PageTitle>
      <p>
        Every subscription whose deliveries are being dead-lettered, with none delivered since, whatever its state. An
        endpoint that has just gone down is listed once its first delivery is given up on: at its retry deadline, or at
        once for a 4xx. Its own page says "failing" from its first failed attempt.
      </p>
      {list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : !list.data ? (
        <Loading what="the failing subscriptions" />
      ) : list.data.length === 0 ? (
        <p class="note" role="status">
          Nothing is failing.
        </p>
      ) : (
        <>
          <TableWrap label="Failing now">
            <table>
              <caption>{list.data.length} failing, the longest first</caption>
              <thead>
                <tr>
                  <th scope="col">Subscription</th>
                  <th scope="col">Failing since</th>
                  <th scope="col">Dead letters</th>
                  <th scope="col">State</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Host</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((s) => (
                  <FailingRow key={s.id} s={s} />
                ))}
              </tbody>
            </table>
          </TableWrap>
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </>
      )}
    </>
  );
}

function FailingRow({ s }: { readonly s: Subscription }) {
  // The API kept only failing ones; one that recovered between its page and this render has none.
  const failing = failingNow(s);
  if (!failing) return null;
  return (
    <tr>
      <td class="wrap">
        <a href={href(['subscriptions', s.id])}>{endpointName(s)}</a>
        <div class="muted small">{s.id}</div>
      </td>
      <td>
        <RelativeTime iso={failing.since} />
      </td>
      <td>
        <a href={href(['subscriptions', s.id], { tab: 'dead-letters' })}>{failing.deadLetters} in a row</a>
      </td>
      <td>
        <StateBadge state={s.state} />
      </td>
      <td>{s.tenantId ?? <span class="muted">none</span>}</td>
      <td class="wrap">{hostOf(s.url)}</td>
    </tr>
  );
}

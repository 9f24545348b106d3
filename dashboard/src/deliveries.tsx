import { useEffect, useState } from 'preact/hooks';
import type { AnswerOf, ItemOf } from '#client/hookline-client.ts';
import { useSession } from './context.ts';
import { href, navigate, type Route } from './route.ts';
import {
  absoluteTime,
  ActionError,
  CopyButton,
  ErrorNote,
  Loading,
  PageTitle,
  pretty,
  RelativeTime,
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
 * "after 1 attempt" counts the current run (it restarts at a resend or a Retry now); the attempt
 * log shows every run, so such a delivery says both, never one attempt above two rows.
 */
function attemptsSaid(d: Detail): string {
  const inAll = d.attemptLog.at(-1)?.seq ?? d.attempts;
  const run = `after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  return inAll > d.attempts ? `${run} since it was last resent or retried (${inAll} in all)` : run;
}

/** The delivery states, as the API spells them (the `state` filter). */
const DELIVERY_STATES = ['pending', 'in_flight', 'delivered', 'failed', 'expired'] as const;

/** The creation-time presets: a span back from the moment the list is opened. */
const RANGES = [
  { value: '1h', label: 'in the last hour', ms: 3_600_000 },
  { value: '24h', label: 'in the last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'in the last 7 days', ms: 7 * 86_400_000 },
] as const;
const CUSTOM = 'custom';

/**
 * A delivery list's filters as the URL hash keeps them, so a filtered view can be linked and
 * survives a reload: `state`, `type` (exactly), and `range`, a preset (kept as its name: a link
 * to "the last hour" means the hour before it is opened) or `custom` with `since` and `until`.
 */
export interface ListFilter {
  readonly state?: string;
  readonly type?: string;
  readonly range?: string;
  readonly since?: string;
  readonly until?: string;
}

const FILTER_KEYS = ['state', 'type', 'range', 'since', 'until'] as const satisfies readonly (keyof ListFilter)[];

export function filterFromRoute(query: URLSearchParams): ListFilter {
  const filter: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = query.get(key)?.trim();
    if (value) filter[key] = value;
  }
  // Bounds belong to a custom range only: a preset's come from the clock.
  if (filter.range !== CUSTOM) {
    delete filter.since;
    delete filter.until;
  }
  return filter;
}

/** The filter as `href` query parameters (empty ones are left out of the link). */
export function filterQuery(filter: ListFilter): Record<string, string | undefined> {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, filter[key]]));
}

const isFiltered = (f: ListFilter) => FILTER_KEYS.some((key) => f[key] !== undefined);

/** The API's filters for a list opened at `nowMs`: a preset becomes its `since`, fixed for every page of the list. */
function apiFilter(f: ListFilter, nowMs: number): Record<string, string> {
  const preset = RANGES.find((r) => r.value === f.range);
  return {
    ...(f.state ? { state: f.state } : {}),
    ...(f.type ? { eventType: f.type } : {}),
    ...(preset ? { since: new Date(nowMs - preset.ms).toISOString() } : {}),
    ...(f.range === CUSTOM && f.since ? { since: f.since } : {}),
    ...(f.range === CUSTOM && f.until ? { until: f.until } : {}),
  };
}

/** What the filter lets through, in words: "failed", "of type order.paid", "created in the last hour". */
function filterWords(f: ListFilter): { readonly state?: string; readonly rest: readonly string[] } {
  const rest: string[] = [];
  if (f.type) rest.push(`of type ${f.type}`);
  const preset = RANGES.find((r) => r.value === f.range);
  if (preset) rest.push(`created ${preset.label}`);
  else if (f.range === CUSTOM && (f.since || f.until))
    rest.push(
      `created${f.since ? ` from ${absoluteTime(f.since)}` : ''}${f.until ? ` until ${absoluteTime(f.until)}` : ''}`,
    );
  return { ...(f.state ? { state: f.state.replace('_', ' ') } : {}), rest };
}

/** An ISO instant as the value of a `datetime-local` input, in the viewer's zone (to the minute). */
function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** A `datetime-local` value (the viewer's zone) as the ISO instant the API reads; `until` takes in its whole minute. */
function fromLocalInput(value: string, end: 'from' | 'to'): string | undefined {
  if (!value) return undefined;
  const ms = new Date(value).getTime();
  if (Number.isNaN(ms)) return undefined;
  return new Date(end === 'to' ? ms + 59_999 : ms).toISOString();
}

/**
 * The filters above a subscription's deliveries: the selects apply at once, the typed ones
 * (event type, a custom range) with Apply or Enter; every change goes into the URL hash.
 */
function DeliveryFilters(props: {
  readonly filter: ListFilter;
  readonly apply: (next: ListFilter) => void;
  readonly suggestions: readonly string[];
}) {
  const { filter, apply } = props;
  const [type, setType] = useState(filter.type ?? '');
  const [since, setSince] = useState(localInput(filter.since));
  const [until, setUntil] = useState(localInput(filter.until));
  // What is typed goes along with a select's change, so nothing typed is lost by choosing a state.
  const typed = (over: ListFilter): ListFilter => {
    const range = 'range' in over ? over.range : filter.range;
    const custom = range === CUSTOM;
    const next: ListFilter = { ...filter, type: type.trim() || undefined, range, ...over };
    return {
      ...next,
      since: custom ? fromLocalInput(since, 'from') : undefined,
      until: custom ? fromLocalInput(until, 'to') : undefined,
    };
  };
  return (
    <form
      class="filters delivery-filters"
      aria-label="Filter deliveries"
      onSubmit={(e) => {
        e.preventDefault();
        apply(typed({}));
      }}
    >
      <div class="field">
        <label for="state-filter">State</label>
        <select
          id="state-filter"
          value={filter.state ?? ''}
          onChange={(e) => apply(typed({ state: e.currentTarget.value || undefined }))}
        >
          <option value="">any state</option>
          {DELIVERY_STATES.map((st) => (
            <option key={st} value={st}>
              {st.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="type-filter">Event type</label>
        <input
          id="type-filter"
          value={type}
          list="type-suggestions"
          placeholder="any type"
          autoComplete="off"
          spellcheck={false}
          onInput={(e) => setType(e.currentTarget.value)}
        />
        <datalist id="type-suggestions">
          {props.suggestions.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="range-filter">Created</label>
        <select
          id="range-filter"
          value={filter.range ?? ''}
          onChange={(e) => apply(typed({ range: e.currentTarget.value || undefined }))}
        >
          <option value="">any time</option>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
          <option value={CUSTOM}>in a range…</option>
        </select>
      </div>
      {filter.range === CUSTOM && (
        <>
          <div class="field">
            <label for="since-filter">Created from</label>
            <input
              id="since-filter"
              type="datetime-local"
              value={since}
              onInput={(e) => setSince(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="until-filter">Created until</label>
            <input
              id="until-filter"
              type="datetime-local"
              value={until}
              onInput={(e) => setUntil(e.currentTarget.value)}
            />
          </div>
        </>
      )}
      <div class="field-actions">
        <button type="submit">Apply</button>
        {isFiltered(filter) && (
          <button type="button" onClick={() => apply({})}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * A subscription's deliveries with their filters, which live in the URL hash (`path`'s query):
 * a filtered view is a link, and a reload shows it again.
 */
export function DeliveryList(props: {
  readonly subscriptionId: string;
  readonly path: readonly string[];
  readonly route: Route;
  /** The subscription's patterns: the exact ones are offered as event types. */
  readonly eventTypes?: readonly string[];
}) {
  const filter = filterFromRoute(props.route.query);
  const [seen, setSeen] = useState<readonly string[]>([]);
  const apply = (next: ListFilter) => navigate(href(props.path, filterQuery(next)));
  const suggestions = [...new Set([...(props.eventTypes ?? []).filter((t) => !t.includes('*')), ...seen])].sort();
  const key = JSON.stringify(filterQuery(filter));
  return (
    <>
      <DeliveryFilters key={key} filter={filter} apply={apply} suggestions={suggestions} />
      <DeliveryTable
        key={key}
        kind="deliveries"
        subscriptionId={props.subscriptionId}
        filter={filter}
        onClear={() => apply({})}
        onTypes={(types) =>
          setSeen((prev) => (types.every((t) => prev.includes(t)) ? prev : [...new Set([...prev, ...types])]))
        }
      />
    </>
  );
}

/** A subscription's deliveries (filtered) or dead letters (one subscription's, or every one for the operator), newest first, a page at a time. */
export function DeliveryTable(props: {
  readonly kind: 'deliveries' | 'dead-letters';
  readonly subscriptionId?: string;
  readonly filter?: ListFilter;
  readonly onClear?: () => void;
  readonly onTypes?: (types: readonly string[]) => void;
}) {
  const { client } = useSession();
  const filter = props.filter ?? {};
  // Fixed when the list opens, so "the last hour" is one span for every page of it.
  const [query] = useState(() => apiFilter(filter, Date.now()));
  const [items, setItems] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [want, setWant] = useState(0);
  const page = useAsync(async () => {
    const paging = { limit: 25, ...(want > 0 && cursor ? { cursor } : {}) };
    return props.kind === 'deliveries'
      ? client.call('GET /v1/deliveries', {
          query: { ...paging, ...query, subscriptionId: props.subscriptionId! },
        })
      : client.call('GET /v1/dead-letters', {
          query: { ...paging, ...(props.subscriptionId ? { subscriptionId: props.subscriptionId } : {}) },
        });
  }, [want]);
  useEffect(() => {
    if (!page.data) return;
    setItems((prev) => (want === 0 ? [...page.data!.items] : [...prev, ...page.data!.items]));
    setCursor(page.data.nextCursor);
    props.onTypes?.(page.data.items.flatMap((d) => (d.eventType ? [d.eventType] : [])));
  }, [page.data]);

  if (page.error) return <ErrorNote error={page.error} onRetry={page.reload} />;
  if (!page.data && items.length === 0)
    return <Loading what={props.kind === 'deliveries' ? 'deliveries' : 'dead letters'} />;
  const words = filterWords(filter);
  const more = cursor && (
    <button type="button" disabled={page.loading} onClick={() => setWant((w) => w + 1)}>
      Load more
    </button>
  );
  if (items.length === 0) {
    return (
      <div class="note">
        {props.kind === 'dead-letters' ? (
          <p>No dead letters: every delivery was delivered or is still being tried. Nothing to do.</p>
        ) : isFiltered(filter) ? (
          <>
            {/* Says which filters are on, so an empty list is never mistaken for no deliveries at all. */}
            <p role="status">
              No {words.state ? `${words.state} ` : ''}deliveries
              {words.rest.length > 0 ? ` ${words.rest.join(' ')}` : ''}
              {cursor ? ' among those read so far: load more to look further back.' : '.'}
            </p>
            <div class="actions">
              {more}
              <button type="button" onClick={props.onClear}>
                Clear filters
              </button>
            </div>
          </>
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
  const caption =
    props.kind === 'deliveries'
      ? `Deliveries${words.state ? ` in state ${words.state}` : ''}${words.rest.map((w) => `, ${w}`).join('')}, newest first`
      : 'Dead letters, newest first';
  return (
    <>
      <TableWrap label={props.kind === 'deliveries' ? 'Deliveries' : 'Dead letters'}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {/* What a person scans for first (state, type, status, when) comes before the long ids. */}
              <th scope="col">Delivery</th>
              {overall && <th scope="col">Subscription</th>}
              <th scope="col">State</th>
              <th scope="col">Event type</th>
              <th scope="col">Last status</th>
              <th scope="col">Attempts</th>
              {/* A list is ordered, and filtered, by creation; dead letters by when they died. */}
              <th scope="col">{props.kind === 'dead-letters' ? 'Dead-lettered' : 'Created'}</th>
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
                <td>{d.eventType ?? <span class="muted">–</span>}</td>
                <td>{d.lastStatus ?? (d.lastError ? <span class="small">{d.lastError}</span> : '–')}</td>
                <td>{d.attempts}</td>
                <td>
                  <RelativeTime iso={props.kind === 'dead-letters' ? d.updatedAt : d.createdAt} />
                </td>
                <td class="id">
                  <a href={href(['events', d.eventId])}>{d.eventId}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {more}
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

/**
 * The two ways to send a delivery ahead of its schedule: Retry now while it waits out its
 * backoff, Resend once it has finished. Either is followed until its attempt is recorded (a
 * second a poll, for a minute); the page is reloaded to show it. Whether a retry is allowed
 * is the API's to say: a refusal (not attempted yet, due now, a paused subscription, the
 * limit) is shown as it answers.
 */
function DeliveryActions({ detail, onChanged }: { readonly detail: Detail; readonly onChanged: () => void }) {
  const { client } = useSession();
  const [error, setError] = useState<unknown>();
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const params = { params: { deliveryId: detail.id } };
  const follow = async (settled: (d: Detail) => boolean, outcome: (d: Detail) => string) => {
    onChanged();
    for (let i = 0; i < 60; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await client.call('GET /v1/deliveries/{deliveryId}', params);
      if (settled(now)) {
        setSaid(outcome(now));
        break;
      }
    }
    onChanged();
  };
  const act = (run: () => Promise<void>) => async () => {
    setBusy(true);
    setError(undefined);
    setSaid('');
    try {
      await run();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const resend = act(async () => {
    await client.call('POST /v1/deliveries/{deliveryId}/replay', params);
    setSaid('Resent: it is pending again and will be attempted in a moment.');
    await follow(
      (d) => FINISHED.has(d.state),
      (d) =>
        d.state === 'delivered'
          ? 'Resent and delivered.'
          : `Resent; it ended ${d.state} again: see the newest attempt below.`,
    );
  });
  const retryNow = act(async () => {
    await client.call('POST /v1/deliveries/{deliveryId}/retry', params);
    setSaid('Retrying now: its next attempt is on its way.');
    // Retry now restarts the run's count at 0: the attempt it hurries makes it 1, or finishes the delivery.
    await follow(
      (d) => d.state !== 'pending' || d.attempts > 0,
      (d) =>
        d.state === 'delivered'
          ? 'Retried and delivered.'
          : `Retried; it ${d.state === 'pending' ? 'failed again and waits for its next attempt' : `ended ${d.state}`}: see the newest attempt below.`,
    );
  });
  const resendable = RESENDABLE.has(detail.state);
  return (
    <div class="actions">
      {/* Resend stays the first primary button whatever the state: the portal tests find it there. */}
      <button type="button" class="primary" disabled={busy || !resendable} onClick={() => void resend()}>
        Resend
      </button>
      {detail.state === 'pending' && (
        <button type="button" class="primary" disabled={busy} onClick={() => void retryNow()}>
          Retry now
        </button>
      )}
      {!resendable && !busy && (
        <span class="muted">
          {detail.state === 'pending'
            ? 'Retry now makes its next attempt at once instead of after the backoff. It can be resent once it is delivered, failed or expired.'
            : 'It can be resent once it is delivered, failed or expired.'}
        </span>
      )}
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
      <DeliveryActions detail={d} onChanged={detail.reload} />
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

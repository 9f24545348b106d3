import { useEffect, useState } from 'preact/hooks';
import { explain } from './api.ts';
import { useSession } from './context.ts';
import { href, navigate } from './route.ts';
import { ErrorNote, Loading, PageTitle } from './ui.tsx';
import { useAsync } from './use-async.ts';

/**
 * The header's one box: an event id (the id or Idempotency-Key it was published with) or a
 * delivery id. Both roles have it; what it finds is what the session may read, so a customer
 * finds their own events and deliveries and nothing of another tenant's.
 */
export function SearchForm() {
  const [text, setText] = useState('');
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        const q = text.trim();
        if (q) navigate(href(['search'], { q }));
      }}
    >
      <label for="find" class="sr-only">
        Event or delivery id
      </label>
      <input
        id="find"
        type="search"
        spellcheck={false}
        autoComplete="off"
        placeholder="Event or delivery id"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit">Find</button>
    </form>
  );
}

type Found = { readonly event: boolean; readonly delivery: boolean };

/** False for "no such id here" (404, or 400 for an id that cannot be one); anything else is an error to show. */
const absent = (error: unknown): false => {
  const { status } = explain(error);
  if (status === 404 || status === 400) return false;
  throw error;
};

/** Looks `q` up as an event and as a delivery at once; one match opens its page, none says so. */
export function SearchPage({ q }: { readonly q: string }) {
  const { client } = useSession();
  const lookup = useAsync(async (): Promise<Found> => {
    const [event, delivery] = await Promise.all([
      client.call('GET /v1/events/{eventId}', { params: { eventId: q } }).then(() => true, absent),
      client.call('GET /v1/deliveries/{deliveryId}', { params: { deliveryId: q } }).then(() => true, absent),
    ]);
    return { event, delivery };
  }, [q]);
  const found = lookup.data;
  useEffect(() => {
    // One match: its page, in place of this one (Back returns to where the search started).
    if (found?.event && !found.delivery) location.replace(href(['events', q]));
    if (found?.delivery && !found.event) location.replace(href(['deliveries', q]));
  }, [found]);

  if (lookup.error) return <ErrorNote error={lookup.error} onRetry={lookup.reload} />;
  if (!found || lookup.loading) return <Loading what={`“${q}”`} />;
  return (
    <>
      <PageTitle>Find “{q}”</PageTitle>
      {found.event && found.delivery ? (
        <ul>
          <li>
            <a href={href(['events', q])}>The event {q}</a>
          </li>
          <li>
            <a href={href(['deliveries', q])}>The delivery {q}</a>
          </li>
        </ul>
      ) : found.event || found.delivery ? (
        <p role="status">Opening it…</p>
      ) : (
        <div class="note" role="status">
          <p>
            Nothing found for “{q}”. Search by an event id (the <code>id</code> or <code>Idempotency-Key</code> it was
            published with) or a delivery id (<code>dlv_…</code>), exactly as given. An event kept past its retention,
            or one that is not yours to see, is not found.
          </p>
        </div>
      )}
    </>
  );
}

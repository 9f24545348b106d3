import { useEffect, useMemo, useState } from 'preact/hooks';
import { clientFor, explain } from './api.ts';
import { ArchivePage, BulkReplayPage, DeadLettersPage, MailPage, PortalLinksPage } from './console.tsx';
import { SessionContext, type Session } from './context.ts';
import { ContractPage } from './contract.tsx';
import { DeliveryPage } from './deliveries.tsx';
import { EventPage, EventsPage } from './events.tsx';
import { EventTypesPage } from './event-types.tsx';
import { FailingNowPage } from './failing.tsx';
import { href, navigate, useRoute, type Route } from './route.ts';
import {
  clearCredential,
  forgetFragment,
  loadCredential,
  portalCodeIn,
  saveCredential,
  type Credential,
} from './session.ts';
import { SearchForm, SearchPage } from './search.tsx';
import { SubscriptionPage, SubscriptionsPage } from './subscriptions.tsx';
import { PageTitle, Time } from './ui.tsx';

/** What the tab shows when no session is open: why, and what to do. */
type Gate =
  | { readonly kind: 'sign-in' }
  | { readonly kind: 'opening' }
  | { readonly kind: 'link-refused'; readonly message: string }
  | { readonly kind: 'ended'; readonly message: string; readonly portal: boolean };

function SignIn({ onKey }: { readonly onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [checking, setChecking] = useState(false);
  const submit = async () => {
    setChecking(true);
    setError('');
    // One cheap admin-only read tells a wrong key from a right one before anything is shown.
    try {
      await clientFor({ kind: 'admin', key: key.trim() }).call('GET /v1/replays', { query: { limit: 1 } });
      onKey(key.trim());
    } catch (e) {
      const { what, status } = explain(e);
      setError(
        status === 401 || status === 403
          ? 'That is not the admin key. npm start prints it (and keeps it in .data/admin-key); on AWS it is in the secret named by the AdminKeySecretArn output.'
          : what,
      );
    } finally {
      setChecking(false);
    }
  };
  return (
    <main id="main" class="page narrow">
      <PageTitle>Hookline console</PageTitle>
      <p>
        Operators: enter the admin key. It stays in this tab only (sessionStorage) and is sent to this API alone, as a
        bearer header.
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div class="field">
          <label for="admin-key">Admin key</label>
          <input
            id="admin-key"
            type="password"
            required
            autoComplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={checking}>
            Sign in
          </button>
        </div>
        {error && (
          <p class="note note-error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="muted">
        Customers: open the link you were sent. Links work once; if yours has expired, ask the team that sends you
        webhooks for a new one.
      </p>
    </main>
  );
}

function GatePage({
  gate,
  onStartOver,
}: {
  readonly gate: Exclude<Gate, { kind: 'sign-in' }>;
  readonly onStartOver: () => void;
}) {
  if (gate.kind === 'opening') {
    return (
      <main id="main" class="page narrow">
        <PageTitle>Opening your link…</PageTitle>
        <p role="status">Checking the link.</p>
      </main>
    );
  }
  const refused = gate.kind === 'link-refused';
  return (
    <main id="main" class="page narrow">
      <PageTitle>{refused ? 'This link cannot be opened' : 'Your session has ended'}</PageTitle>
      <div class="note note-error" role="alert">
        <p>{gate.message}</p>
      </div>
      <p>
        {refused || (gate.kind === 'ended' && gate.portal)
          ? 'Portal links work once and for a limited time (an hour unless the sender chose otherwise). Ask the team that sends you webhooks for a new link.'
          : 'Sign in again with the admin key.'}
      </p>
      <button type="button" onClick={onStartOver}>
        Start over
      </button>
    </main>
  );
}

function Page({ route, session }: { readonly route: Route; readonly session: Session }) {
  const [first, second] = route.segments;
  const operator = session.credential.kind === 'admin';
  const only = session.credential.kind === 'portal' ? session.credential.subscriptionId : null;
  if (first === 'subscriptions' && second) return <SubscriptionPage key={second} id={second} route={route} />;
  if (first === 'deliveries' && second) return <DeliveryPage key={second} id={second} />;
  if (first === 'events' && second) return <EventPage key={second} id={second} />;
  if (first === 'contract') return <ContractPage />;
  if (first === 'event-types') return <EventTypesPage />;
  if (first === 'search') return <SearchPage key={route.query.get('q') ?? ''} q={route.query.get('q') ?? ''} />;
  if (operator && first === 'events') return <EventsPage key={route.query.toString()} route={route} />;
  if (operator && first === 'dead-letters') return <DeadLettersPage />;
  if (operator && first === 'failing') return <FailingNowPage />;
  if (operator && first === 'replays') return <BulkReplayPage />;
  if (operator && first === 'archive') return <ArchivePage />;
  if (operator && first === 'portal-links') return <PortalLinksPage />;
  if (operator && first === 'mail') return <MailPage />;
  // A link limited to one subscription opens on it.
  if (only && (first === undefined || first === 'subscriptions'))
    return <SubscriptionPage key={only} id={only} route={route} />;
  return <SubscriptionsPage key={route.query.get('tenant') ?? ''} route={route} />;
}

function Shell({ session, route }: { readonly session: Session; readonly route: Route }) {
  const c = session.credential;
  const links: [string, string][] =
    c.kind === 'admin'
      ? [
          [href(['subscriptions']), 'Subscriptions'],
          [href(['failing']), 'Failing now'],
          [href(['events']), 'Events'],
          [href(['event-types']), 'Event types'],
          [href(['dead-letters']), 'Dead letters'],
          [href(['replays']), 'Bulk replay'],
          [href(['portal-links']), 'Portal links'],
          [href(['archive']), 'Archive'],
          [href(['mail']), 'Notice emails'],
          [href(['contract']), 'Delivery contract'],
        ]
      : [
          [href(['subscriptions']), c.subscriptionId ? 'Your endpoint' : 'Your endpoints'],
          [href(['event-types']), 'Event types'],
          [href(['contract']), 'How delivery works'],
        ];
  const current = `#${route.path}`;
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is an in-page anchor; the hash route would take #main for a page, so focus moves by hand. */}
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Hookline {c.kind === 'admin' ? 'console' : 'portal'}</span>
        <nav aria-label="Main">
          <ul>
            {links.map(([to, text]) => (
              <li key={to}>
                <a href={to} aria-current={current === to.split('?')[0] ? 'page' : undefined}>
                  {text}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SearchForm />
        <div class="who">
          {c.kind === 'portal' ? (
            <span class="small">
              {c.tenantId} · {c.access === 'manage' ? 'manage' : 'view only'} · until <Time iso={c.expiresAt} />
            </span>
          ) : (
            <span class="small">admin</span>
          )}
          <button type="button" onClick={() => session.end()}>
            {c.kind === 'admin' ? 'Sign out' : 'Close session'}
          </button>
        </div>
      </header>
      <main id="main" class="page" tabIndex={-1}>
        <Page route={route} session={session} />
      </main>
    </>
  );
}

export function App() {
  const route = useRoute();
  const [credential, setCredential] = useState<Credential | undefined>(() => loadCredential());
  const [gate, setGate] = useState<Gate>(() =>
    portalCodeIn(location.hash) ? { kind: 'opening' } : { kind: 'sign-in' },
  );

  // A portal link, opened or pasted into an open tab: take the code out of the URL at once, then trade it for a session.
  useEffect(() => {
    const open = () => {
      const code = portalCodeIn(location.hash);
      if (!code) return;
      forgetFragment();
      // A link replaces whatever this tab held: a portal session never sits beside an admin key.
      clearCredential();
      setCredential(undefined);
      setGate({ kind: 'opening' });
      clientFor(undefined)
        .call('POST /v1/portal-sessions/exchange', { body: { code } })
        .then(
          (s) => {
            const portal: Credential = {
              kind: 'portal',
              token: s.token,
              sessionId: s.sessionId,
              tenantId: s.tenantId,
              subscriptionId: s.subscriptionId,
              access: s.access,
              expiresAt: s.expiresAt,
            };
            saveCredential(portal);
            setCredential(portal);
            navigate(href([]));
          },
          (error: unknown) => setGate({ kind: 'link-refused', message: explain(error).what }),
        );
    };
    open();
    addEventListener('hashchange', open);
    return () => removeEventListener('hashchange', open);
  }, []);

  const session = useMemo<Session | undefined>(() => {
    if (!credential) return undefined;
    return {
      credential,
      client: clientFor(credential),
      end: (reason?: string) => {
        clearCredential();
        setCredential(undefined);
        setGate(
          reason ? { kind: 'ended', message: reason, portal: credential.kind === 'portal' } : { kind: 'sign-in' },
        );
        navigate(href([]));
      },
    };
  }, [credential]);

  // A portal session ends with its link: say so when it does, rather than at the next refused call.
  useEffect(() => {
    if (credential?.kind !== 'portal') return;
    const left = Date.parse(credential.expiresAt) - Date.now();
    const end = () => session?.end(`This session expired at ${new Date(credential.expiresAt).toLocaleString()}.`);
    if (left <= 0) return end();
    const timer = setTimeout(end, Math.min(left, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [credential]);

  if (!session) {
    if (gate.kind === 'sign-in') {
      return (
        <SignIn
          onKey={(key) => {
            const admin: Credential = { kind: 'admin', key };
            saveCredential(admin);
            setCredential(admin);
          }}
        />
      );
    }
    return <GatePage gate={gate} onStartOver={() => setGate({ kind: 'sign-in' })} />;
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell session={session} route={route} />
    </SessionContext.Provider>
  );
}

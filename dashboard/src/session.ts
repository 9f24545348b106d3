/**
 * Who this tab is signed in as, kept in this tab's sessionStorage only (never a cookie, never
 * localStorage, never the URL): the operator's admin key, or a customer's portal session token.
 * Bearer headers are sent only by this page's own fetch calls, so a request another site makes
 * the browser send carries no credential at all: that is the CSRF defence (docs/design.md).
 */

export type Credential =
  | { readonly kind: 'admin'; readonly key: string }
  | {
      readonly kind: 'portal';
      readonly token: string;
      readonly sessionId: string;
      readonly tenantId: string;
      readonly subscriptionId: string | null;
      /** What the link was minted for; absent in a tab opened before levels existed, which could only view. */
      readonly access?: 'view' | 'manage';
      readonly expiresAt: string;
    };

const STORAGE_KEY = 'hookline.credential';

export function loadCredential(): Credential | undefined {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as Credential) : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces whatever the tab held: a portal session never sits beside an admin key. */
export function saveCredential(credential: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
}

export function clearCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export const bearerOf = (c: Credential): string => (c.kind === 'admin' ? c.key : c.token);

/** The portal code a link carries (`#portal=<code>`), if the page was opened with one. */
export function portalCodeIn(hash: string): string | undefined {
  const match = /^#portal=([A-Za-z0-9_.-]+)$/.exec(hash);
  return match?.[1];
}

/** Takes the code out of the address bar and the tab's history entry at once, before anything else happens. */
export function forgetFragment(): void {
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  // replaceState fires no hashchange: tell the router the page is at #/ now.
  dispatchEvent(new HashChangeEvent('hashchange'));
}

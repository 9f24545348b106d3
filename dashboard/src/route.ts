import { useEffect, useState } from 'preact/hooks';

/** Where the page is: `#/path?query`, so navigation never reaches a server and never carries a credential. */
export interface Route {
  readonly path: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '') || '/';
  const at = text.indexOf('?');
  const path = at === -1 ? text : text.slice(0, at);
  return {
    path,
    segments: path.split('/').filter(Boolean).map(decodeURIComponent),
    query: new URLSearchParams(at === -1 ? '' : text.slice(at + 1)),
  };
}

/** A link target: `#/a/b?x=1`, each segment encoded, empty query values left out. */
export function href(segments: readonly string[], query: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
  const text = search.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${text ? `?${text}` : ''}`;
}

export function navigate(target: string): void {
  location.hash = target;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

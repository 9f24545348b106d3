import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { HooklineClient } from '#client/hookline-client.ts';
import type { Credential } from './session.ts';

export interface Session {
  readonly credential: Credential;
  readonly client: HooklineClient;
  /** Ends the session in this tab (sign out, or a refused credential). */
  readonly end: (reason?: string) => void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether this tab is the operator's console (the admin key) rather than a customer's portal. */
export const isOperator = (s: Session) => s.credential.kind === 'admin';

/**
 * Whether this tab may change endpoints (create, edit, delete, rotate): the operator, or a portal
 * session minted with access "manage". Only which controls show: the API decides either way.
 */
export const mayManage = (s: Session) => s.credential.kind === 'admin' || s.credential.access === 'manage';

/** Whether this tab may add endpoints: a session limited to one endpoint manages that one alone. */
export const mayCreate = (s: Session) =>
  mayManage(s) && (s.credential.kind === 'admin' || s.credential.subscriptionId === null);

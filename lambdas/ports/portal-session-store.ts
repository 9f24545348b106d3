import type { PortalAccess } from '#domain/portal-session.ts';

/**
 * A customer portal link and the session it opens, as stored: the one-time code and the
 * session token only as SHA-256 hashes (hex), never usable values. Both carry the session id,
 * so every lookup is by id.
 */
export interface PortalSessionRecord {
  /** `psn_…`: the public handle (shown to the admin, used to revoke). */
  readonly id: string;
  readonly tenantId: string;
  /** The one subscription the session may see; absent: all of the tenant's. */
  readonly subscriptionId?: string;
  /** What the session may do (domain/portal-session.ts); absent on a row written before levels existed, read as `view` (portalAccessOf). */
  readonly access?: PortalAccess;
  readonly createdAt: string;
  /** When the link, and the session opened with it, stop working. */
  readonly endsAt: string;
  /** SHA-256 of the one-time code the link carries. */
  readonly codeHash: string;
  /** When the code was traded for a session token; a code works once. */
  readonly exchangedAt?: string;
  /** SHA-256 of the session token the exchange issued. */
  readonly tokenHash?: string;
  /** When the admin revoked it; the link and the session are refused from then on. */
  readonly revokedAt?: string;
}

export interface PortalSessionStore {
  /** Stores a new session (its id never seen before). */
  put(record: PortalSessionRecord): Promise<void>;
  /** The session as last written (a strongly consistent read: a revocation counts from when it was written). */
  get(id: string): Promise<PortalSessionRecord | undefined>;
  /**
   * Records the exchange of the code whose hash is `codeHash` for the token whose hash is
   * `tokenHash`, only if the code was never exchanged, the session is not revoked and has not
   * ended at `nowIso` (one conditional write: of two concurrent exchanges, one wins). Returns the
   * record as stored, or undefined when the condition did not hold.
   */
  exchange(id: string, codeHash: string, tokenHash: string, nowIso: string): Promise<PortalSessionRecord | undefined>;
  /** Marks the tenant's session revoked at `nowIso` (revoking again keeps the first time); undefined when the tenant has no such session. */
  revoke(tenantId: string, id: string, nowIso: string): Promise<PortalSessionRecord | undefined>;
}

import type { PortalSessionRecord, PortalSessionStore } from '#ports/portal-session-store.ts';

/** Portal sessions in memory, each write under the condition DynamoDbPortalSessionStore puts on it. */
export class InMemoryPortalSessionStore implements PortalSessionStore {
  readonly items = new Map<string, PortalSessionRecord>();

  async put(record: PortalSessionRecord): Promise<void> {
    if (this.items.has(record.id)) throw new Error(`portal session ${record.id} exists`);
    this.items.set(record.id, structuredClone(record));
  }

  async get(id: string): Promise<PortalSessionRecord | undefined> {
    const r = this.items.get(id);
    return r && structuredClone(r);
  }

  async exchange(
    id: string,
    codeHash: string,
    tokenHash: string,
    nowIso: string,
  ): Promise<PortalSessionRecord | undefined> {
    const r = this.items.get(id);
    if (!r || r.codeHash !== codeHash || r.exchangedAt || r.revokedAt || !(r.endsAt > nowIso)) return undefined;
    const next = { ...r, exchangedAt: nowIso, tokenHash };
    this.items.set(id, next);
    return structuredClone(next);
  }

  async revoke(tenantId: string, id: string, nowIso: string): Promise<PortalSessionRecord | undefined> {
    const r = this.items.get(id);
    if (!r || r.tenantId !== tenantId) return undefined;
    const next = { ...r, revokedAt: r.revokedAt ?? nowIso };
    this.items.set(id, next);
    return structuredClone(next);
  }
}

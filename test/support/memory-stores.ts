/**
 * In-memory stand-ins for the ports the tenant and bulk-replay services use beyond the delivery
 * engine (rate limiter, tenant keys, replay audit records, Idempotency-Key records). Each keeps the rule its DynamoDB
 * adapter's conditional write keeps, so a service test sees the same refusals.
 */
import { fixedWindow, retryAfterSeconds, type RateDecision, type RateLimit } from '#domain/rate-limit.ts';
import type { ReplayRecord } from '#domain/replay.ts';
import type { ApiKeyRecord, ApiKeyStore } from '#ports/api-key-store.ts';
import type { BeginResult, IdempotencyRecord, IdempotencyStore } from '#ports/idempotency-store.ts';
import type { Page, PageRequest } from '#ports/page.ts';
import type { RateLimiter } from '#ports/rate-limiter.ts';
import type { SendRateCounters } from '#ports/send-rate-counters.ts';
import type { ReplayProgress, ReplayStore } from '#ports/replay-store.ts';
import { offsetPage } from './offset-page.ts';

/** Fixed windows per key, like DynamoDbRateLimiter; `taken` records every key asked for. */
export class InMemoryRateLimiter implements RateLimiter {
  readonly counts = new Map<string, number>();
  readonly taken: string[] = [];

  async take(key: string, limit: RateLimit, nowMs: number): Promise<RateDecision> {
    this.taken.push(key);
    const window = fixedWindow(nowMs, limit.windowSeconds);
    const slot = `${key}#${window.startSeconds}`;
    const count = this.counts.get(slot) ?? 0;
    if (count >= limit.limit) return { kind: 'limited', retryAfterSeconds: retryAfterSeconds(nowMs, window.resetAtMs) };
    this.counts.set(slot, count + 1);
    return { kind: 'allowed', remaining: limit.limit - count - 1 };
  }
}

/** The send-rate counters as DynamoDbSendRateCounters keeps them; `calls` records every key asked for, in order. */
export class InMemorySendRateCounters implements SendRateCounters {
  readonly counts = new Map<string, number>();
  readonly turns = new Map<string, number>();
  readonly calls: { op: 'count' | 'takeTurn'; key: string }[] = [];

  async count(key: string, _expiresAtSeconds: number): Promise<number> {
    this.calls.push({ op: 'count', key });
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  async takeTurn(key: string, earliest: number, _expiresAtSeconds: number): Promise<number> {
    this.calls.push({ op: 'takeTurn', key });
    const turn = Math.max(this.turns.get(key) ?? earliest, earliest);
    this.turns.set(key, turn + 1);
    return turn;
  }
}

export class InMemoryApiKeyStore implements ApiKeyStore {
  readonly items = new Map<string, ApiKeyRecord>();

  async put(record: ApiKeyRecord): Promise<void> {
    if (this.items.has(record.keyHash)) throw new Error('key hash exists');
    this.items.set(record.keyHash, { ...record });
  }

  async find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const r = this.items.get(keyHash);
    return r && { ...r };
  }

  async listByTenant(tenantId: string): Promise<readonly ApiKeyRecord[]> {
    return [...this.items.values()].filter((r) => r.tenantId === tenantId).map((r) => ({ ...r }));
  }

  async revoke(tenantId: string, keyId: string, nowIso: string): Promise<ApiKeyRecord | undefined> {
    const r = [...this.items.values()].find((k) => k.tenantId === tenantId && k.keyId === keyId);
    if (!r) return undefined;
    const revoked = { ...r, revokedAt: r.revokedAt ?? nowIso };
    this.items.set(r.keyHash, revoked);
    return { ...revoked };
  }
}

/** The audit records, with the lease rules of DynamoDbReplayStore. */
export class InMemoryReplayStore implements ReplayStore {
  readonly items = new Map<string, ReplayRecord>();
  /** Every checkpoint written, in order. */
  readonly checkpoints: ReplayProgress[] = [];

  async create(record: ReplayRecord): Promise<void> {
    this.items.set(record.id, structuredClone(record));
  }

  async get(id: string): Promise<ReplayRecord | undefined> {
    const r = this.items.get(id);
    return r && structuredClone(r);
  }

  async list(request: PageRequest): Promise<Page<ReplayRecord>> {
    return offsetPage(
      [...this.items.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt)),
      request,
    );
  }

  async acquire(id: string, owner: string, leaseUntil: string, nowIso: string): Promise<ReplayRecord | undefined> {
    const r = this.items.get(id);
    if (r?.status !== 'running') return undefined;
    if (r.leaseOwner && r.leaseOwner !== owner && r.leaseUntil && r.leaseUntil > nowIso) return undefined;
    const acquired = { ...r, leaseOwner: owner, leaseUntil };
    this.items.set(id, acquired);
    return structuredClone(acquired);
  }

  async checkpoint(id: string, owner: string, progress: ReplayProgress): Promise<boolean> {
    const r = this.items.get(id);
    if (!r || r.leaseOwner !== owner) return false;
    this.checkpoints.push(structuredClone(progress));
    const { cursor: _c, ...rest } = r;
    this.items.set(id, { ...rest, ...progress });
    return true;
  }

  async listStalled(nowIso: string, limit: number): Promise<readonly string[]> {
    return [...this.items.values()]
      .filter((r) => r.status === 'running' && (!r.leaseUntil || r.leaseUntil <= nowIso))
      .slice(0, limit)
      .map((r) => r.id);
  }
}

/** Idempotency-Key records with the conditions of DynamoDbIdempotencyStore. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly items = new Map<string, IdempotencyRecord>();

  async begin(
    record: IdempotencyRecord & { owner: string; lockedUntil: string },
    nowIso: string,
  ): Promise<BeginResult> {
    const current = this.items.get(record.id);
    const free =
      !current ||
      current.expiresAt <= Math.floor(Date.parse(nowIso) / 1000) ||
      (!current.response &&
        current.lockedUntil !== undefined &&
        current.lockedUntil < nowIso &&
        current.fingerprint === record.fingerprint);
    if (!free) return { kind: 'exists', record: structuredClone(current) };
    this.items.set(record.id, structuredClone(record));
    return { kind: 'started' };
  }

  async complete(id: string, owner: string, response: NonNullable<IdempotencyRecord['response']>): Promise<boolean> {
    const current = this.items.get(id);
    if (!current || current.owner !== owner) return false;
    const { owner: _o, lockedUntil: _l, ...rest } = current;
    this.items.set(id, { ...rest, response: { ...response } });
    return true;
  }

  async release(id: string, owner: string): Promise<void> {
    if (this.items.get(id)?.owner === owner) this.items.delete(id);
  }
}

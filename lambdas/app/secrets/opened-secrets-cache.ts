import type { SealedSecrets } from '#domain/types.ts';
import type { SecretOpener } from '#ports/secret-sealer.ts';
import { setBounded } from '#domain/bounded-map.ts';

export interface OpenedSecretsCacheOptions {
  /** How long an opened blob is reused: the same bound on a revoked KMS grant as the data-key cache's. @default 5 minutes */
  readonly ttlMs?: number;
  /** Most blobs held per opener; the oldest goes first. @default 1000 */
  readonly maxEntries?: number;
}

interface Entry {
  readonly at: number;
  readonly subscriptionId: string;
  readonly sealed: SealedSecrets;
  readonly secrets: Promise<readonly string[]>;
}

/** The whole blob and its subscription: a hit needs the very bytes that were opened, for the subscription they were sealed for. */
function same(e: Entry, subscriptionId: string, s: SealedSecrets): boolean {
  const t = e.sealed;
  return (
    e.subscriptionId === subscriptionId &&
    t.data === s.data &&
    t.iv === s.iv &&
    t.scheme === s.scheme &&
    t.key === s.key &&
    t.ring === s.ring
  );
}

/**
 * Opened secrets per container, so a warm sender does not run AES-GCM (and JSON.parse) on every
 * attempt. Keyed by the sealed blob itself (its GCM tag, then every other field compared), so a
 * rotated secret, a new ciphertext, is opened afresh; held per opener, so a blob is never served
 * by an opener other than the one that opened it. A failed open is not remembered. The plain
 * text stays inside this object: nothing here logs or exposes it.
 */
export class OpenedSecretsCache {
  private readonly byOpener = new WeakMap<SecretOpener, Map<string, Entry>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    options: OpenedSecretsCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = options.ttlMs ?? 300_000;
    this.maxEntries = options.maxEntries ?? 1000;
  }

  open(opener: SecretOpener, subscriptionId: string, sealed: SealedSecrets): Promise<readonly string[]> {
    let entries = this.byOpener.get(opener);
    if (!entries) this.byOpener.set(opener, (entries = new Map()));
    const hit = entries.get(sealed.tag);
    const at = this.now();
    if (hit && same(hit, subscriptionId, sealed) && at - hit.at < this.ttlMs) return hit.secrets;
    // Frozen: every caller shares the one list. (An opener that throws at once rejects here too.)
    const secrets = new Promise<readonly string[]>((resolve) => resolve(opener.open(subscriptionId, sealed))).then(
      (list) => Object.freeze([...list]),
    );
    const entry: Entry = { at, subscriptionId, sealed: { ...sealed }, secrets };
    setBounded(entries, sealed.tag, entry, this.maxEntries);
    secrets.catch(() => {
      if (entries.get(sealed.tag) === entry) entries.delete(sealed.tag);
    });
    return secrets;
  }
}

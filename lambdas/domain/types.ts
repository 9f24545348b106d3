import type { DeliveryState } from './states.ts';
import type { RetryPolicy } from './retry-policy.ts';

/** `deleted` is final: the row stays for the retention period so its history reads, and nothing is sent. */
export type SubscriptionState = 'active' | 'paused' | 'disabled' | 'deleted';

export interface Subscription {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly tenantId?: string;
  readonly description?: string;
  readonly retryPolicy?: RetryPolicy;
  /** Sent with every delivery, beside the fixed ones (names checked by domain/custom-headers.ts). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The owner's own labels; never sent. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** `v1a`: Ed25519 signing keys (`whsk_`), receivers verify with `publicKeys`; absent: `v1`, HMAC-SHA256 secrets. */
  readonly signatureScheme?: 'v1' | 'v1a';
  /** For `v1a`: each signing key's `whpk_` public key, same order as `secrets` (not secret, so kept in plain text). */
  readonly publicKeys?: readonly string[];
  /** Who is told when the endpoint keeps failing (failure notices, docs/operations.md); at most MAX_CONTACT_EMAILS (domain/notices.ts). */
  readonly contactEmails?: readonly string[];
  /** At most this many attempts a second to this endpoint; the rest wait (docs/design.md, "Rate limits"). */
  readonly rateLimitPerSecond?: number;
  readonly state: SubscriptionState;
  readonly stateReason?: string;
  readonly stateChangedAt: string;
  /** First dead letter of the current unbroken run (a delivered delivery or a resume clears the run). */
  readonly deadLetteringSince?: string;
  readonly lastDeadLetterAt?: string;
  /** Dead letters in the current run. */
  readonly deadLetterStreak?: number;
  /** While later than now, its deliveries go to the slow lane (domain/slow-lane.ts); the sender sets it, nothing clears it. */
  readonly slowUntil?: string;
  /**
   * The latest Retry now of one of its deliveries (domain/retry-now.ts): a retry message made
   * before it may carry a row that moved, so it reads the row first. Nothing clears it; a later one replaces it.
   */
  readonly retriedNowAt?: string;
  /**
   * The signing secrets (newest first; more than one while a rotation is in progress), sealed:
   * a subscription read from the store carries no usable secret, and only the sender's
   * SecretOpener turns this into the strings `signatureHeaders` needs (docs/design.md, "Secrets at rest").
   */
  readonly secrets: StoredSecrets;
  /**
   * When each secret of `secrets` (same order) stops signing, absent or null for the newest: a
   * rotation keeps the old secret beside the new one for an overlap window, then it drops out.
   */
  readonly secretExpiry?: readonly (string | null)[];
  /**
   * How many times the secrets were replaced (absent: never). A rotation writes only if it is
   * still what it read, so two rotations at once never drop each other's new secret, whatever
   * their clocks say (an `updatedAt` can repeat within a millisecond; a counter cannot).
   */
  readonly secretsVersion?: number;
  /**
   * Counts the writes that may change how the subscription is routed (creation, a change of its
   * fields or state): its routing entries carry the count they were written at, so an older
   * write arriving late never overwrites a newer one (domain/routing.ts). Absent on a row
   * written before the routing index, until the index is built.
   */
  readonly routeVersion?: number;
  /** Every pattern the routing index holds an entry of this subscription under (its event types, and ones it had, until pruned). */
  readonly routedPatterns?: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * What a subscription listing shows (the API's subscription view): everything but its secrets
 * and its bookkeeping. A tenant's listing reads these from the byTenant index, which projects
 * them alone, so a page reads about half the bytes of whole rows (docs/design.md, "Data model").
 */
export const LISTED_SUBSCRIPTION_FIELDS = [
  'id',
  'url',
  'eventTypes',
  'tenantId',
  'description',
  'retryPolicy',
  'metadata',
  'headers',
  'rateLimitPerSecond',
  'contactEmails',
  'signatureScheme',
  'publicKeys',
  'state',
  'stateReason',
  'stateChangedAt',
  'deadLetteringSince',
  'deadLetterStreak',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof Subscription)[];
export type ListedSubscription = Pick<Subscription, (typeof LISTED_SUBSCRIPTION_FIELDS)[number]>;

/**
 * Signing secrets encrypted with AES-256-GCM under a data key, bound to their subscription's
 * id. `kms-v2`: the data key is the keyring's key of `ring` (a month), shared by every
 * subscription sealed then, and `key` is its KMS-encrypted form; `kms-v1` (sealed before the
 * keyring, still opened): a data key of the subscription's own; `local-v1`: the data key is
 * the local runtime's key file, so there is no `key`. Binary fields are base64.
 */
export interface SealedSecrets {
  readonly scheme: 'kms-v2' | 'kms-v1' | 'local-v1';
  readonly key?: string;
  /** `kms-v2`: the ring whose data key sealed it, part of that key's KMS encryption context. */
  readonly ring?: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

/** A row written before secrets were sealed: the store reads its plain list as this until it is sealed. */
export interface PlainSecrets {
  readonly scheme: 'plain';
  readonly secrets: readonly string[];
}

export type StoredSecrets = SealedSecrets | PlainSecrets;

/** The subscription createSubscription returns: the one time its plain-text secret is shown. */
export type CreatedSubscription = Subscription & { readonly secret: string };

/** The publish idempotency record; the body is kept here once, not per delivery. */
export interface EventRecord {
  readonly id: string;
  readonly type: string;
  /** The exact bytes POSTed to every endpoint, on every attempt and replay. */
  readonly body: string;
  /** The tenant whose subscriptions it reaches; absent: the producer's own (subscriptions without a tenant). */
  readonly tenantId?: string;
  /** `all`: published to every tenant at once (the admin only; domain/audience.ts). */
  readonly audience?: 'all';
  /** The subscriptions the publish named, when it narrowed the event to them (at most MAX_NAMED_SUBSCRIPTIONS). */
  readonly narrowedTo?: readonly string[];
  /** The subscriptions it went to, at publish, and each one's delivery (same order). */
  readonly subscriptionIds: readonly string[];
  readonly deliveryIds: readonly string[];
  /**
   * What a first message needs of a subscription beyond its id, for those that differ from the
   * defaults (by subscription id; absent when none does): the fan-out builds the first messages
   * from the stored event alone, with no read of the subscriptions.
   */
  readonly firstSends?: Readonly<Record<string, FirstSend>>;
  readonly createdAt: string;
}

/** How a subscription's first message differs from the default: its own retry deadline, and travelling alone (a rate limit). */
export interface FirstSend {
  readonly deadlineSeconds?: number;
  readonly alone?: true;
}

export interface Delivery {
  readonly id: string;
  readonly eventId: string;
  /**
   * The event's type, kept on the row so a listing shows and filters by it without reading
   * the event. Absent on a row an earlier version wrote: its readers take it from the event
   * (app/deliveries/reads.ts).
   */
  readonly eventType?: string;
  readonly subscriptionId: string;
  readonly tenantId?: string;
  readonly url: string;
  readonly state: DeliveryState;
  /** Attempts since creation or the last replay: the backoff exponent. */
  readonly attempts: number;
  /** Attempts over the delivery's whole life: the attempt log's key, never reset. */
  readonly attemptSeq: number;
  readonly nextAttemptAt: string;
  /** On a row an earlier version left claimed (`in_flight`): when its claim ran out. Nothing writes it now. */
  readonly leaseUntil?: string;
  readonly giveUpAt: string;
  readonly lastStatus?: number;
  readonly lastError?: string;
  readonly lastResponse?: string;
  /** Headers other than the signature set, as sent on every attempt. */
  readonly headers: Readonly<Record<string, string>>;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Present on a delivery brought back from the archive (for a dispute). */
  readonly restored?: RestoreMarker;
  /**
   * The latest attempt, kept on the row itself: an attempt's outcome and its record are one
   * write. The attempt it replaces joins `earlierAttempts` while the row stays within a write
   * unit, or goes to the attempts table first (domain/attempt-log.ts `placeReplaced`), so the
   * log is the table plus what the row holds. `lastResponse` is read back from it, not stored
   * twice.
   */
  readonly lastAttempt?: InlineAttempt;
  /**
   * The attempts before the latest, oldest first, from the first on, while they fit on the row;
   * a retry message carries them with the row (domain/attempt-log.ts).
   */
  readonly earlierAttempts?: readonly InlineAttempt[];
  /** On a row an earlier version wrote: its first attempt, when that was made on the happy path. */
  readonly firstAttempt?: InlineAttempt;
}

/**
 * What a write of a delivery's row expects to find, and its condition: no attempt yet (no row,
 * or only the row a wait or the sweeper wrote before any attempt: pending at attempt 0), or the
 * row pending at the attempt number it was last written with. Every writer of an attempt or a
 * wait holds it (a delivery message carries it); the write that finds anything else changes
 * nothing. The due time is not part of it: an attempt that was made is recorded though a wait
 * or the sweeper moved the row's due time meanwhile (the sweeper's message for it then finds
 * the attempt number moved on and sends nothing).
 */
export type Expectation = { readonly row: 'none' } | { readonly row: 'as'; readonly attemptSeq: number };

export const NO_ROW: Expectation = Object.freeze({ row: 'none' });

/** The expectation of a writer that has just read, or just written, `row`. */
export function expectationOf(row: Pick<Delivery, 'attemptSeq'>): Expectation {
  return { row: 'as', attemptSeq: row.attemptSeq };
}

/** An attempt stored on its delivery's row: the attempt record without the delivery id. */
export type InlineAttempt = Omit<AttemptRecord, 'deliveryId'>;

/** Where a restored delivery came from, and until when it stays in DynamoDB. */
export interface RestoreMarker {
  readonly objectKey: string;
  readonly until: string;
  /** The archived version's `updatedAt`: while the row still has it, the archive already holds this exact row. */
  readonly updatedAt: string;
}

export interface AttemptRecord {
  readonly deliveryId: string;
  /** Lifetime sequence number (1, 2, …) across replays. */
  readonly seq: number;
  /** Attempt number within the current run (resets to 1 after a replay). */
  readonly attempt: number;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly status?: number;
  readonly responseSnippet?: string;
  readonly error?: string;
}

/** Captured responses are capped so a hostile endpoint cannot bloat the tables. */
export const RESPONSE_SNIPPET_BYTES = 512;

/** Truncates to at most `bytes` UTF-8 bytes without splitting a character. */
export function capUtf8(text: string, bytes = RESPONSE_SNIPPET_BYTES): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= bytes) return text;
  // Back up over continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  let end = bytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

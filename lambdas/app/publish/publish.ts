import { sameAudience } from '#domain/audience.ts';
import type { EventTypeVerdict, EventTypeWarning } from '#domain/event-type-catalog.ts';
import { deliveryIdFor, formatId } from '#domain/ids.ts';
import type { RouteTarget } from '#domain/routing.ts';
import type { EventRecord, Subscription } from '#domain/types.ts';
import { firstSendsOf, giveUpAtOf } from '#app/publish/first-delivery.ts';
import type { Deps } from '#app/deps.ts';
import { TemporarilyUnavailableError, ValidationError } from '#app/errors.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';
import { audienceTargets, type AudiencePlan } from '#app/publish/audience-targets.ts';
import { catalogVerdicts, type CatalogCheckDeps } from '#app/event-types/publish-check.ts';
import { requireRoutesBuilt } from '#app/subscriptions/routing.ts';
import { eventTtlFor } from '#domain/retention.ts';
import { iso } from '#domain/time.ts';
import { INGEST_MANIFEST_SHARDS, MANIFEST_SETTLE_SECONDS, METRICS } from '#config/topology.ts';

/** What this service uses (FunctionDeps of every function that runs it must include these). */
export type PublishDeps = Pick<
  Deps,
  'events' | 'subscriptions' | 'routes' | 'ingestManifests' | 'clock' | 'metrics' | 'defaultRetryPolicy' | 'retention'
> &
  CatalogCheckDeps;

/** How long a publish may spend building the routing index of a deployment from before it (requireRoutesBuilt) before it answers 503. */
const PUBLISH_ROUTE_BUILD_BUDGET_MS = 5000;

/** What the event-type catalog said of an event it let through (HOOKLINE_EVENT_TYPE_CHECK); absent when nothing. */
interface Warned {
  readonly warnings?: readonly EventTypeWarning[];
}

export type PublishResult =
  | ({ readonly kind: 'accepted'; readonly eventId: string; readonly deliveryIds: readonly string[] } & Warned)
  /** The id was seen before: the original delivery ids, nothing new sent. */
  | ({ readonly kind: 'duplicate'; readonly eventId: string; readonly deliveryIds: readonly string[] } & Warned)
  /** The id names an event stored with another type, payload or audience: nothing stored or sent (the API answers 422). */
  | ({ readonly kind: 'conflict'; readonly eventId: string; readonly deliveryIds: readonly string[] } & Warned)
  /** The event names a subscription outside its audience (`subscriptionIds`): nothing stored or sent (the API answers 400). */
  | { readonly kind: 'refused'; readonly error: ValidationError };

/**
 * The webhook body `{id, type, timestamp, data}` as text. The envelope's fields are Hookline's
 * and serialised here; `data` is the producer's payload text spliced in unchanged, because a
 * parse and re-serialise would rewrite numbers (1.0 → 1), escapes and key order.
 */
export function webhookBody(id: string, type: string, timestamp: string, payloadJson: string): string {
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${payloadJson}}`;
}

export interface PublishOptions {
  /** Fan out to this one subscription alone (a test event), still by its state and event types; the catalog is not asked. */
  readonly only?: Subscription;
  /**
   * Any refused event refuses the whole batch, naming it (`events[3].subscriptionIds[0]`), before
   * anything is stored: the HTTP batch's 400. Without it a refused event is a result of its own
   * and the others go on (the ingest queue, where each message stands alone).
   */
  readonly wholeOrNothing?: boolean;
}

/** One event (POST /v1/events): a refusal is thrown as the ValidationError it is. */
export async function publish(
  deps: PublishDeps,
  request: PublishRequest,
  options: PublishOptions = {},
): Promise<Exclude<PublishResult, { kind: 'refused' }>> {
  const result = (await publishBatch(deps, [request], options))[0]!;
  if (result.kind === 'refused') throw result.error;
  return result;
}

/**
 * Stores each event once (idempotent on its id: the conditional put is the check, no read
 * before it), with one delivery per matching subscription of its audience (its tenant's, the
 * producer's, or every tenant's: domain/audience.ts), found in the routing index. Storing is the
 * hand-off: the events table's stream brings each new event to the fan-out (app/publish/
 * fan-out.ts), which enqueues the first messages of many publishes together; no delivery row is
 * written before its first attempt. Paused subscriptions get deliveries too: they wait, never
 * skip. The batch's manifest, written first, lets the sweeper finish whatever stopped in
 * between. A duplicate is answered with the original's ids and sends nothing.
 */
export async function publishBatch(
  deps: PublishDeps,
  requests: readonly PublishRequest[],
  options: PublishOptions & { readonly wholeOrNothing: true },
): Promise<readonly Exclude<PublishResult, { kind: 'refused' }>[]>;
export async function publishBatch(
  deps: PublishDeps,
  requests: readonly PublishRequest[],
  options?: PublishOptions,
): Promise<readonly PublishResult[]>;
export async function publishBatch(
  deps: PublishDeps,
  requests: readonly PublishRequest[],
  options: PublishOptions = {},
): Promise<readonly PublishResult[]> {
  if (requests.length === 0) return [];
  if (!options.only) await requireRoutesBuilt(deps, PUBLISH_ROUTE_BUILD_BUDGET_MS);
  const nowMs = deps.clock.now();
  // Every audience and the catalog's verdicts are settled before anything is stored: a refused event stores nothing.
  const [audiences, verdicts] = await Promise.all([
    Promise.all(requests.map((request) => audienceTargets(deps, request, options.only))),
    options.only ? undefined : catalogVerdicts(deps, requests),
  ]);
  const planned = audiences.map((plan, i) => judged(plan, verdicts?.[i]));
  if (options.wholeOrNothing) {
    const i = planned.findIndex((p) => p.kind === 'refused');
    const refused = planned[i];
    if (refused?.kind === 'refused') throw inBatch(i, refused.error);
  }
  const events = newEvents(deps, requests, planned, iso(nowMs));
  // A batch whose every event was refused stores nothing at all, not even its manifest.
  if (events.length > 0) await writeManifest(deps, events, nowMs);
  const stored = await Promise.all(events.map((e) => storeEvent(deps, e)));
  for (const r of stored) if (r.result.kind === 'accepted') deps.metrics.count(METRICS.eventsPublished);
  const byIndex = new Map(stored.map((r) => [r.index, r.result]));
  return planned.map((plan, i): PublishResult => {
    if (plan.kind === 'refused') return { kind: 'refused', error: plan.error };
    const result = byIndex.get(i)!;
    return plan.warnings.length > 0 && result.kind !== 'refused' ? { ...result, warnings: plan.warnings } : result;
  });
}

/** An event's plan once the catalog has judged it: whom it reaches and what to tell the producer, or why it is refused. */
type JudgedPlan =
  | {
      readonly kind: 'targets';
      readonly targets: readonly RouteTarget[];
      readonly warnings: readonly EventTypeWarning[];
    }
  | { readonly kind: 'refused'; readonly error: ValidationError };

/** The audience's refusal first (it names the event's own fields), then the catalog's (`type`, `payload`). */
function judged(plan: AudiencePlan, verdict: EventTypeVerdict | undefined): JudgedPlan {
  if (plan.kind === 'refused') return plan;
  if (verdict?.kind === 'refuse') return { kind: 'refused', error: new ValidationError(verdict.field, verdict.rule) };
  return { ...plan, warnings: verdict?.warnings ?? [] };
}

/** An event about to be stored: its request's place in the batch, the record and its TTL. */
interface NewEvent {
  readonly index: number;
  readonly event: EventRecord;
  readonly payloadJson: string;
  /** Epoch seconds (eventTtlFor): the last of its deliveries' deadlines plus the delivered retention. */
  readonly expiresAt: number;
}

/** The records of the batch's events that were not refused, each with the subscriptions it reaches. */
function newEvents(
  deps: Pick<PublishDeps, 'clock' | 'defaultRetryPolicy' | 'retention'>,
  requests: readonly PublishRequest[],
  planned: readonly JudgedPlan[],
  createdAt: string,
): NewEvent[] {
  return planned.flatMap((plan, index) => {
    if (plan.kind === 'refused') return [];
    const request = requests[index]!;
    const id = request.id ?? formatId('evt', deps.clock.randomBytes(16));
    const event: EventRecord = {
      id,
      type: request.type,
      body: webhookBody(id, request.type, createdAt, request.payloadJson),
      ...(request.tenantId !== undefined ? { tenantId: request.tenantId } : {}),
      ...(request.audience ? { audience: request.audience } : {}),
      ...(request.subscriptionIds ? { narrowedTo: request.subscriptionIds } : {}),
      subscriptionIds: plan.targets.map((t) => t.id),
      deliveryIds: plan.targets.map((t) => deliveryIdFor(id, t.id, createdAt)),
      ...firstSendsOf(plan.targets),
      createdAt,
    };
    const lastGiveUpAtMs = Math.max(
      Date.parse(createdAt),
      ...plan.targets.map((t) => giveUpAtOf(createdAt, t.deadlineSeconds, deps.defaultRetryPolicy)),
    );
    const expiresAt = eventTtlFor(lastGiveUpAtMs, deps.retention);
    return [{ index, event, payloadJson: request.payloadJson, expiresAt }];
  });
}

/**
 * The batch's manifest, written before any event: the sweeper checks after its grace that every
 * delivery of it was attempted (app/sweep/finish-publish.ts), and the manifests are the event
 * log (GET /v1/events), so every batch of events has one, deliveries or not.
 */
async function writeManifest(deps: PublishDeps, batch: readonly NewEvent[], nowMs: number): Promise<void> {
  const createdAt = iso(nowMs);
  const events = batch.map((e) => e.event);
  await deps.ingestManifests.put({
    shard: `m${deps.clock.randomBytes(1)[0]! % INGEST_MANIFEST_SHARDS}`,
    key: `${createdAt}#${Buffer.from(deps.clock.randomBytes(9)).toString('base64url')}`,
    createdAt,
    eventIds: events.map((e) => e.id),
    eventTypes: events.map((e) => e.type),
    // Only when some event has one: the log's tenant filter; '' is an event without a tenant.
    ...(events.some((e) => e.tenantId !== undefined) ? { eventTenants: events.map((e) => e.tenantId ?? '') } : {}),
    deliveryIds: events.flatMap((e) => e.deliveryIds),
    // The event log lists the batch as long as its longest-kept event.
    expiresAt: Math.max(...batch.map((e) => e.expiresAt)),
  });
  // The sweeper's watermark passes a key once it is MANIFEST_SETTLE_SECONDS old, so a manifest
  // that landed later than half of that (a process stalled mid-publish) might never be checked:
  // stop before storing anything, and let the caller (or the queue) try again.
  if (deps.clock.now() - nowMs > (MANIFEST_SETTLE_SECONDS * 1000) / 2)
    throw new TemporarilyUnavailableError(
      `publish stalled ${deps.clock.now() - nowMs} ms after creating its batch; nothing was stored, send it again`,
    );
}

/** Stores one event once (its conditional put is the idempotency check). */
async function storeEvent(
  deps: PublishDeps,
  { index, event, payloadJson, expiresAt }: NewEvent,
): Promise<{ index: number; result: PublishResult }> {
  const put = await deps.events.putIfAbsent(event, expiresAt);
  if (put.kind === 'exists') {
    // The same event again is a duplicate; another type, payload or audience under its id is not: the body it would have had at the stored time tells.
    const existing = put.existing;
    const same =
      existing.type === event.type &&
      existing.body === webhookBody(event.id, event.type, existing.createdAt, payloadJson) &&
      sameAudience(existing, event) &&
      sameNarrowing(existing, event);
    return {
      index,
      result: { kind: same ? 'duplicate' : 'conflict', eventId: event.id, deliveryIds: existing.deliveryIds },
    };
  }
  return { index, result: { kind: 'accepted', eventId: event.id, deliveryIds: event.deliveryIds } };
}

/** A refusal of the batch's event `i`, naming it as the request does. */
function inBatch(i: number, error: ValidationError): ValidationError {
  return new ValidationError(`events[${i}].${error.field}`, error.rule, { cause: error });
}

/** Both name the same subscriptions (or neither narrows). */
function sameNarrowing(a: Pick<EventRecord, 'narrowedTo'>, b: Pick<EventRecord, 'narrowedTo'>): boolean {
  return [...(a.narrowedTo ?? [])].sort().join(' ') === [...(b.narrowedTo ?? [])].sort().join(' ');
}

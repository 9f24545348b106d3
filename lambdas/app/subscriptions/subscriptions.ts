import { failingNow } from '#domain/failing-now.ts';
import { formatId } from '#domain/ids.ts';
import { formatSecret, formatSigningKey, publicKeyOf, type SigningScheme } from '#domain/signing.ts';
import { checkTargetUrl, isForbiddenAddress } from '#domain/targets.ts';
import { iso } from '#domain/time.ts';
import type { CreatedSubscription, ListedSubscription, SealedSecrets, Subscription } from '#domain/types.ts';
import type { Page } from '#ports/page.ts';
import { limitedSubscriptionListing, type Principal, tenantScope, visibleSubscription } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError, ForbiddenError, ValidationError } from '#app/errors.ts';
import {
  FAILING_SCAN_ROWS,
  type CreateSubscriptionRequest,
  type SubscriptionListQuery,
} from '#app/subscriptions/subscription-request.ts';
import { drainBacklog } from '#app/subscriptions/drain.ts';
import { takeTenantAction } from '#app/tenants/customer-limit.ts';
import { routedChange } from '#app/subscriptions/routing.ts';

/**
 * The request as the principal may make it: the admin's for any tenant or none; a tenant's (a
 * manage portal session) for its own tenant, which it is when it names none. Another tenant is a
 * ForbiddenError (403), with nothing stored, as for a publish (app/publish/publish-access.ts).
 */
function scopeCreate(principal: Principal, request: CreateSubscriptionRequest): CreateSubscriptionRequest {
  if (principal.role === 'admin') return request;
  if (request.tenantId !== undefined && request.tenantId !== principal.tenantId)
    throw new ForbiddenError(
      `a session of tenant ${principal.tenantId} creates subscriptions for that tenant only, not for tenant ${request.tenantId}`,
    );
  return { ...request, tenantId: principal.tenantId };
}

/**
 * Stores a new, active subscription with a fresh signing secret, for the tenant the principal
 * may create for (scopeCreate), once its URL passes the target rules. A URL the rules refuse
 * throws the domain's ForbiddenTargetError, which callers answer as a refusal of `url`
 * (handlers/error-map.ts).
 */
export async function createSubscription(
  deps: Pick<
    Deps,
    'subscriptions' | 'routes' | 'clock' | 'allowPrivateTargets' | 'allowedPorts' | 'resolver' | 'secretSealer'
  >,
  principal: Principal,
  asked: CreateSubscriptionRequest,
): Promise<CreatedSubscription> {
  const request = scopeCreate(principal, asked);
  const url = await checkTarget(deps, request.url);
  const now = iso(deps.clock.now());
  const id = formatId('sub', deps.clock.randomBytes(12));
  const { signatureScheme = 'v1', ...fields } = request;
  const secret = newSecret(deps, signatureScheme);
  // Sealed before it is stored: the plain secret lives only in this answer, shown once.
  const subscription: Subscription & { readonly secrets: SealedSecrets } = {
    id,
    ...fields,
    // The normalised URL the rules judged is the one stored and sent, not the text as written.
    url: url.href,
    state: 'active',
    stateChangedAt: now,
    secrets: await deps.secretSealer.seal(id, [secret]),
    ...(signatureScheme === 'v1a' ? { signatureScheme, publicKeys: [publicKeyOf(secret)] } : {}),
    // Routed from its first write: the routing index gets an entry per event type (app/subscriptions/routing.ts).
    routeVersion: 1,
    routedPatterns: [...fields.eventTypes],
    createdAt: now,
    updatedAt: now,
  };
  await routedChange(deps, id, async () => {
    await deps.subscriptions.create(subscription);
    return subscription;
  });
  return { ...subscription, secret };
}

/** A fresh signing secret for the scheme: a `whsec_` HMAC secret or a `whsk_` Ed25519 key. */
export function newSecret(deps: Pick<Deps, 'clock'>, scheme: SigningScheme): string {
  return scheme === 'v1a' ? formatSigningKey(deps.clock.randomBytes(32)) : formatSecret(deps.clock.randomBytes(32));
}

/** The URL rules, plus (in cloud mode) the addresses its host resolves to right now. */
export async function checkTarget(
  deps: Pick<Deps, 'allowPrivateTargets' | 'allowedPorts' | 'resolver'>,
  raw: string,
): Promise<URL> {
  const url = checkTargetUrl(raw, { allowPrivate: deps.allowPrivateTargets, allowedPorts: deps.allowedPorts });
  if (deps.allowPrivateTargets) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: readonly string[];
  try {
    addresses = await deps.resolver.resolve(host);
  } catch {
    throw new ValidationError('url', `host ${host} does not resolve`);
  }
  const bad = addresses.find(isForbiddenAddress);
  if (bad)
    throw new ValidationError(
      'url',
      `host ${host} resolves to ${bad}, a loopback, private, link-local or metadata address`,
    );
  return url;
}

/** A page of the subscriptions the principal may see: a tenant's own only, whatever tenant it asks for. */
export async function listSubscriptions(
  deps: Pick<Deps, 'subscriptions'>,
  principal: Principal,
  query: SubscriptionListQuery,
): Promise<Page<ListedSubscription>> {
  // A portal session limited to one subscription lists that one alone (app/access.ts).
  const limited = await limitedSubscriptionListing(deps, principal);
  if (limited) return query.failing ? { items: limited.items.filter((s) => failingNow(s)) } : limited;
  const tenantId = tenantScope(principal) ?? query.tenantId;
  const request = {
    limit: query.limit,
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(tenantId ? { tenantId } : {}),
  };
  return query.failing ? failingPage(deps, request) : deps.subscriptions.list(request);
}

/**
 * A page of the failing ones. Nothing marks a failing subscription in an index, so this reads the
 * listing's own pages (every subscription's row, or a tenant's index entries) and keeps those
 * failing now: its cost is that of listing every subscription (or the tenant's), paid in read
 * units whether one is failing or none, at most FAILING_SCAN_ROWS rows a request. Each store page is asked for no more than the page still lacks, so its cursor
 * never skips a row that was read but not kept.
 */
async function failingPage(
  deps: Pick<Deps, 'subscriptions'>,
  request: { readonly limit: number; readonly cursor?: string; readonly tenantId?: string },
): Promise<Page<ListedSubscription>> {
  const { cursor: first, ...scope } = request;
  const items: ListedSubscription[] = [];
  let cursor = first;
  let read = 0;
  do {
    const page = await deps.subscriptions.list({
      ...scope,
      limit: Math.min(request.limit - items.length, FAILING_SCAN_ROWS - read),
      ...(cursor ? { cursor } : {}),
    });
    read += page.items.length;
    items.push(...page.items.filter((s) => failingNow(s)));
    cursor = page.nextCursor;
    // An empty page with a cursor would never end the loop: the store answers at least one row or none left.
    if (page.items.length === 0) break;
  } while (cursor && items.length < request.limit && read < FAILING_SCAN_ROWS);
  return cursor ? { items, nextCursor: cursor } : { items };
}

/** One subscription the principal may see; another tenant's is NotFoundError, like one that does not exist. */
export async function getSubscription(
  deps: Pick<Deps, 'subscriptions'>,
  principal: Principal,
  id: string,
): Promise<Subscription> {
  return visibleSubscription(deps, principal, id);
}

/** A deleted subscription is history: nothing may change it (ConflictError naming the action). */
export function refuseDeleted(subscription: Subscription, action: string): void {
  if (subscription.state === 'deleted')
    throw new ConflictError(
      `subscription ${subscription.id} was deleted at ${subscription.stateChangedAt}; it cannot ${action}`,
    );
}

/** Pause and resume by a tenant key count against `customerPauseLimit`, per subscription. */
type StateChangeDeps = Pick<Deps, 'subscriptions' | 'routes' | 'clock' | 'rateLimiter' | 'customerPauseLimit'>;

/** Counts a tenant's pause or resume before it changes anything (the admin key is not limited). */
async function takeStateChange(deps: StateChangeDeps, principal: Principal, subscriptionId: string): Promise<void> {
  await takeTenantAction(deps, principal, {
    key: 'pause',
    what: 'pauses and resumes',
    limit: deps.customerPauseLimit,
    subscriptionId,
  });
}

/** Pauses a subscription (events wait as pending); pausing a paused one changes nothing, a disabled one is a ConflictError. */
export async function pauseSubscription(
  deps: StateChangeDeps,
  principal: Principal,
  id: string,
  reason = 'paused by request',
): Promise<Subscription> {
  const current = await getSubscription(deps, principal, id);
  await takeStateChange(deps, principal, id);
  if (current.state === 'paused') return current;
  refuseDeleted(current, 'pause');
  if (current.state === 'disabled')
    throw new ConflictError(
      `subscription ${id} is disabled (${current.stateReason ?? 'no reason'}); resume it instead`,
    );
  return (await routedChange(deps, id, () =>
    deps.subscriptions.setState(id, 'paused', reason, iso(deps.clock.now())),
  ))!;
}

/**
 * Makes a paused or disabled subscription active again and its pending deliveries due, spread
 * over the drain window (drain.ts). Resuming an active one changes nothing (`drained: 0`): its
 * deliveries are on their backoff schedule, and pulling them forward would bypass it, nor is
 * its dead-letter streak cleared, which would let a tenant stave off auto-pause.
 */
export async function resumeSubscription(
  deps: StateChangeDeps & Pick<Deps, 'deliveries' | 'queue'>,
  principal: Principal,
  id: string,
): Promise<{ subscription: Subscription; drained: number }> {
  const current = await getSubscription(deps, principal, id);
  await takeStateChange(deps, principal, id);
  if (current.state === 'active') return { subscription: current, drained: 0 };
  refuseDeleted(current, 'resume');
  // A fresh start: the streak that auto-paused it must not pause it again at the next dead letter.
  if (current.deadLetteringSince) await deps.subscriptions.clearDeadLetterStreak(id);
  // Only from the state read: of two concurrent resumes, one drains.
  const subscription = await routedChange(deps, id, () =>
    deps.subscriptions.setState(id, 'active', 'resumed by request', iso(deps.clock.now()), current.state),
  );
  if (!subscription) return { subscription: await getSubscription(deps, principal, id), drained: 0 };
  const { deadLetteringSince: _s, lastDeadLetterAt: _l, deadLetterStreak: _c, ...resumed } = subscription;
  return { subscription: resumed, drained: await drainBacklog(deps, id) };
}

import { formatId } from '#domain/ids.ts';
import { formatSecret } from '#domain/signing.ts';
import { STATE } from '#domain/states.ts';
import { checkTargetUrl, isForbiddenAddress } from '#domain/targets.ts';
import { iso } from '#domain/time.ts';
import type { Subscription } from '#domain/types.ts';
import type { Page } from '#ports/page.ts';
import { type Principal, tenantScope, visibleSubscription } from '#app/access.ts';
import type { Deps } from '#app/deps.ts';
import { ConflictError, ValidationError } from '#app/errors.ts';
import type { CreateSubscriptionRequest, SubscriptionListQuery } from '#app/subscriptions/subscription-request.ts';

/**
 * Stores a new, active subscription with a fresh signing secret, once its URL passes the target
 * rules. A URL the rules refuse throws the domain's ForbiddenTargetError, which callers answer
 * as a refusal of `url` (handlers/error-map.ts).
 */
export async function createSubscription(deps: Pick<Deps, 'subscriptions' | 'clock' | 'allowPrivateTargets' | 'resolver'>, request: CreateSubscriptionRequest): Promise<Subscription> {
  await checkTarget(deps, request.url);
  const now = iso(deps.clock.now());
  const subscription: Subscription = {
    id: formatId('sub', deps.clock.randomBytes(12)),
    ...request,
    state: 'active',
    stateChangedAt: now,
    secrets: [formatSecret(deps.clock.randomBytes(32))],
    createdAt: now,
    updatedAt: now,
  };
  await deps.subscriptions.create(subscription);
  return subscription;
}

/** The URL rules, plus (in cloud mode) the addresses its host resolves to right now. */
async function checkTarget(deps: Pick<Deps, 'allowPrivateTargets' | 'resolver'>, raw: string): Promise<void> {
  const url = checkTargetUrl(raw, { allowPrivate: deps.allowPrivateTargets });
  if (deps.allowPrivateTargets) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: readonly string[];
  try {
    addresses = await deps.resolver.resolve(host);
  } catch {
    throw new ValidationError('url', `host ${host} does not resolve`);
  }
  const bad = addresses.find(isForbiddenAddress);
  if (bad) throw new ValidationError('url', `host ${host} resolves to ${bad}, a loopback, private, link-local or metadata address`);
}

/** A page of the subscriptions the principal may see: a tenant's own only, whatever tenant it asks for. */
export async function listSubscriptions(deps: Pick<Deps, 'subscriptions'>, principal: Principal, query: SubscriptionListQuery): Promise<Page<Subscription>> {
  const tenantId = tenantScope(principal) ?? query.tenantId;
  return deps.subscriptions.list({ limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}), ...(tenantId ? { tenantId } : {}) });
}

/** One subscription the principal may see; another tenant's is NotFoundError, like one that does not exist. */
export async function getSubscription(deps: Pick<Deps, 'subscriptions'>, principal: Principal, id: string): Promise<Subscription> {
  return visibleSubscription(deps, principal, id);
}

/** Pauses a subscription (events wait as pending); pausing a paused one changes nothing, a disabled one is a ConflictError. */
export async function pauseSubscription(deps: Pick<Deps, 'subscriptions' | 'clock'>, principal: Principal, id: string, reason = 'paused by request'): Promise<Subscription> {
  const current = await getSubscription(deps, principal, id);
  if (current.state === 'paused') return current;
  if (current.state === 'disabled') throw new ConflictError(`subscription ${id} is disabled (${current.stateReason ?? 'no reason'}); resume it instead`);
  return (await deps.subscriptions.setState(id, 'paused', reason, iso(deps.clock.now())))!;
}

/** Window over which a resumed backlog is spread: ~50 deliveries a second, at most 5 minutes. */
export function drainWindowSeconds(backlog: number): number {
  return Math.min(300, Math.ceil(backlog / 50));
}

/**
 * Makes the subscription active again and every pending delivery due, spread over a window so
 * the backlog drains without a thundering herd.
 */
export async function resumeSubscription(deps: Pick<Deps, 'subscriptions' | 'deliveries' | 'queue' | 'clock'>, principal: Principal, id: string): Promise<{ subscription: Subscription; drained: number }> {
  const current = await getSubscription(deps, principal, id);
  const nowMs = deps.clock.now();
  // A fresh start: the streak that auto-paused it must not pause it again at the next dead letter.
  if (current.deadLetteringSince) await deps.subscriptions.clearDeadLetterStreak(id);
  const { deadLetteringSince: _s, lastDeadLetterAt: _l, deadLetterStreak: _c, ...unchanged } = current;
  const subscription =
    current.state === 'active' ? unchanged : (await deps.subscriptions.setState(id, 'active', 'resumed by request', iso(nowMs)))!;
  const pending = [];
  let cursor: string | undefined;
  do {
    const page = await deps.deliveries.listBySubscription({ subscriptionId: id, state: STATE.pending, limit: 100, ...(cursor ? { cursor } : {}) });
    pending.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  const window = drainWindowSeconds(pending.length);
  const messages = [];
  for (const d of pending) {
    const delaySeconds = Math.floor(deps.clock.random() * window);
    const at = iso(nowMs + delaySeconds * 1000);
    if (await deps.deliveries.reschedule(d.id, d.nextAttemptAt, at, iso(nowMs))) {
      messages.push({ deliveryId: d.id, subscriptionId: d.subscriptionId, delaySeconds });
    }
  }
  await deps.queue.enqueue(messages);
  return { subscription, drained: messages.length };
}

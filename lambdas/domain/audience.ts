/**
 * Who an event is for. Hookline sends a platform's events to that platform's own customers, so
 * an event belongs to one tenant and reaches that tenant's subscriptions only; an event without a
 * tenant is the producer's own and reaches only subscriptions without one (operational webhooks,
 * internal consumers). Reaching every tenant at once is a separate, explicit choice (`all`), which
 * only the admin key may make (app/publish/publish-access.ts). No other rule decides who receives
 * an event: routing (domain/routing.ts) and a publish naming its subscriptions both ask this one.
 */
export type Audience =
  | { readonly kind: 'tenant'; readonly tenantId: string }
  | { readonly kind: 'producer' }
  | { readonly kind: 'all' };

/** The value of an event's `audience` that reaches every tenant. */
export const EVERY_TENANT = 'all';

/** What an event record or a publish request says about its audience. */
export interface AudienceFields {
  readonly tenantId?: string;
  readonly audience?: typeof EVERY_TENANT;
}

export function audienceOf(fields: AudienceFields): Audience {
  if (fields.audience === EVERY_TENANT) return { kind: 'all' };
  return fields.tenantId !== undefined ? { kind: 'tenant', tenantId: fields.tenantId } : { kind: 'producer' };
}

/** Whether a subscription (by its tenant, which never changes after creation) is in the audience. */
export function inAudience(audience: Audience, subscription: { readonly tenantId?: string }): boolean {
  if (audience.kind === 'all') return true;
  if (audience.kind === 'producer') return subscription.tenantId === undefined;
  return subscription.tenantId === audience.tenantId;
}

/** Two audiences are the same one (an event id published again must name the same audience). */
export function sameAudience(a: AudienceFields, b: AudienceFields): boolean {
  const x = audienceOf(a);
  const y = audienceOf(b);
  return x.kind === y.kind && (x.kind !== 'tenant' || x.tenantId === (y as { tenantId: string }).tenantId);
}

/** How an audience reads in a message ("tenant acme", "subscriptions without a tenant", "every tenant"). */
export function describeAudience(audience: Audience): string {
  if (audience.kind === 'all') return 'every tenant';
  return audience.kind === 'producer' ? 'subscriptions without a tenant' : `tenant ${audience.tenantId}`;
}
